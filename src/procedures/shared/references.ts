import { AppError } from '../../errors/app-error';
import { existsInWorkspace, type ReferencedTable } from '../../db/queries/references.queries';
import type { Db } from '../../db/knex';

/** Tables whose ids procedures take: those an input may reference, and webhook endpoints (named only by their own procedures). */
type NamedTable = ReferencedTable | 'webhookEndpoints';

const LABELS: Record<NamedTable, string> = {
  orgMembers: 'member',
  contacts: 'contact',
  clients: 'client',
  leads: 'lead',
  tasks: 'task',
  invoices: 'invoice',
  webhookEndpoints: 'webhook endpoint',
};

/** The 404 for a record the caller's workspace does not have (whether or not another one does). */
export function notInWorkspace(table: NamedTable, id: string, field?: string): AppError {
  const what = `no ${LABELS[table]} ${JSON.stringify(id)} in this workspace`;
  return new AppError('NOT_FOUND', field ? `${field}: ${what}` : `No ${what.slice(3)}`);
}

/** An id given in an input must name a record of the caller's workspace, or the call is a 404. */
export async function assertInWorkspace(db: Db, table: ReferencedTable, orgId: string, id: string, field: string): Promise<void> {
  if (!(await existsInWorkspace(db, table, orgId, id))) throw notInWorkspace(table, id, field);
}

export function assertMemberInWorkspace(db: Db, orgId: string, memberId: string, field: string): Promise<void> {
  return assertInWorkspace(db, 'orgMembers', orgId, memberId, field);
}
