import type { Db } from '../knex';
import { TABLES } from '../tables';

export type ReferencedTable = 'orgMembers' | 'contacts' | 'clients' | 'leads' | 'tasks' | 'invoices';

/** Whether a row with this id exists in the workspace (the check behind every id given in an input). */
export async function existsInWorkspace(db: Db, table: ReferencedTable, orgId: string, id: string): Promise<boolean> {
  const row = await db(TABLES[table]).select('id').where({ org_id: orgId, id }).first();
  return row !== undefined;
}

/** Which of `ids` name a row of the workspace (an import's batch checks its rows' references in one statement). */
export async function existingInWorkspace(db: Db, table: ReferencedTable, orgId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows: { id: string }[] = await db(TABLES[table]).select('id').where('org_id', orgId).whereIn('id', [...new Set(ids)]);
  return new Set(rows.map((r) => r.id));
}

/** Which of `externalIds` a lead of the workspace holds. */
export async function heldExternalIds(db: Db, orgId: string, externalIds: readonly string[]): Promise<Set<string>> {
  if (externalIds.length === 0) return new Set();
  const rows: { external_id: string }[] = await db(TABLES.leads).select('external_id').where('org_id', orgId).whereIn('external_id', [...new Set(externalIds)]);
  return new Set(rows.map((r) => r.external_id));
}
