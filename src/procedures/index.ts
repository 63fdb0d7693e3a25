import { createRegistry, buildSubscriptionRegistry } from '../rpc/registry';
import { leadsProcedures } from './leads';
import { contactsProcedures } from './contacts';
import { clientsProcedures } from './clients';
import { tasksProcedures } from './tasks';
import { invoicesProcedures } from './invoices';
import { orgMembersProcedures } from './org-members';
import { dashboardProcedures, dashboardSubscriptions } from './dashboard';
import { eventsProcedures, eventsSubscriptions } from './events';
import { webhooksProcedures } from './webhooks';
import { importsProcedures, importsSubscriptions } from './imports';
import { apiKeysProcedures } from './api-keys';
import { organisationProcedures } from './organisation';

/** Every procedure of the service, router by router, listed by hand: adding one is a reviewed line. */
export const procedures = [
  ...leadsProcedures,
  ...contactsProcedures,
  ...clientsProcedures,
  ...tasksProcedures,
  ...invoicesProcedures,
  ...orgMembersProcedures,
  ...dashboardProcedures,
  ...eventsProcedures,
  ...webhooksProcedures,
  ...importsProcedures,
  // Procedures of the app that the API does not expose (exposed: false): 403 through the API.
  ...apiKeysProcedures,
  ...organisationProcedures,
] as const;

export function createProcedureRegistry() {
  return createRegistry(procedures);
}

/** Every subscription: streamed over Server-Sent Events on GET (tRPC's httpSubscriptionLink). */
export const subscriptions = [...eventsSubscriptions, ...dashboardSubscriptions, ...importsSubscriptions] as const;

export function createSubscriptionRegistry(procedureRegistry = createProcedureRegistry()) {
  return buildSubscriptionRegistry(subscriptions, procedureRegistry);
}
