import { AppError } from '../../errors/app-error';
import { existsInWorkspace, type ReferencedTable } from '../../db/references';
import type { IdPrefix } from '../../domain/ids';
import { withFieldCheck } from '../../rpc/field-checks';
import { idOf } from './fields';

/** Tables whose ids procedures take: those an input may reference, and webhook endpoints (named only by their own procedures). */
export type NamedTable = ReferencedTable | 'webhookEndpoints';

const LABELS: Record<NamedTable, string> = {
  orgMembers: 'member',
  contacts: 'contact',
  clients: 'client',
  leads: 'lead',
  tasks: 'task',
  invoices: 'invoice',
  webhookEndpoints: 'webhook endpoint',
};

const PREFIXES: Record<ReferencedTable, IdPrefix> = {
  orgMembers: 'mem',
  contacts: 'con',
  clients: 'cli',
  leads: 'lead',
  tasks: 'task',
  invoices: 'inv',
};

/** What the 404 says of a record the caller's workspace does not have (whether or not another one does). */
function missing(table: NamedTable, id: string): string {
  return `no ${LABELS[table]} ${JSON.stringify(id)} in this workspace`;
}

/** The 404 for the record a procedure acts on (its `id`) when the workspace has none. */
export function notInWorkspace(table: NamedTable, id: string, field?: string): AppError {
  const what = missing(table, id);
  return new AppError('NOT_FOUND', field ? `${field}: ${what}` : `No ${what.slice(3)}`);
}

/**
 * An id in an input that links to another record (a lead's assignee, a task's client): it must
 * name a record of the caller's workspace. Checked by the dispatcher with the input's other
 * problems (src/rpc/field-checks.ts), before the handler runs, so a handler gets only ids that
 * exist; the composite foreign keys (org_id, id) refuse one deleted meanwhile.
 */
export function referenceTo(table: ReferencedTable) {
  return withFieldCheck(idOf(PREFIXES[table]), {
    failure: 'NOT_FOUND',
    check: async (id, { db, orgId }) => ((await existsInWorkspace(db, table, orgId, id)) ? undefined : missing(table, id)),
  });
}
