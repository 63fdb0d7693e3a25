import type { ProcedureName } from './registry-types';

/**
 * The exposed procedures and their HTTP methods, the only facts about the registry the client
 * needs at run time. Kept by hand rather than imported, so the client bundle never pulls in server
 * code; `satisfies` refuses a name the registry lacks, and tests/unit/client-procedure-methods.test.ts
 * checks that this lists exactly the exposed procedures with their methods. The app-only
 * procedures (exposed: false) are left out: the API would answer 403 to every call.
 */
export const procedureMethods = {
  'leads.getAll': 'GET',
  'leads.getById': 'GET',
  'leads.create': 'POST',
  'leads.update': 'POST',
  'leads.delete': 'POST',
  'leads.assign': 'POST',
  'leads.logCall': 'POST',
  'leads.convert': 'POST',
  'leads.getCalls': 'GET',
  'contacts.getAll': 'GET',
  'contacts.getById': 'GET',
  'contacts.create': 'POST',
  'contacts.update': 'POST',
  'contacts.delete': 'POST',
  'clients.getAll': 'GET',
  'clients.getById': 'GET',
  'clients.create': 'POST',
  'clients.update': 'POST',
  'clients.delete': 'POST',
  'tasks.getAll': 'GET',
  'tasks.getById': 'GET',
  'tasks.create': 'POST',
  'tasks.update': 'POST',
  'tasks.complete': 'POST',
  'tasks.delete': 'POST',
  'invoices.getAll': 'GET',
  'invoices.getById': 'GET',
  'invoices.create': 'POST',
  'invoices.update': 'POST',
  'invoices.send': 'POST',
  'invoices.markPaid': 'POST',
  'invoices.void': 'POST',
  'invoices.delete': 'POST',
  'orgMembers.getAll': 'GET',
  'orgMembers.getById': 'GET',
  'dashboard.getLeadStats': 'GET',
  'events.getAll': 'GET',
  'webhooks.create': 'POST',
  'webhooks.getAll': 'GET',
  'webhooks.getById': 'GET',
  'webhooks.update': 'POST',
  'webhooks.delete': 'POST',
  'webhooks.rotateSecret': 'POST',
  'webhooks.getDeliveries': 'GET',
} as const satisfies { [N in ProcedureName]?: 'GET' | 'POST' };

export type ClientProcedureName = keyof typeof procedureMethods;
