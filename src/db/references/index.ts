import type { Db } from '../knex';
import { TABLES } from '../tables';

export type ReferencedTable = 'orgMembers' | 'contacts' | 'clients' | 'leads' | 'tasks' | 'invoices';

/** Whether a row with this id exists in the workspace (the check behind every id given in an input). */
export async function existsInWorkspace(db: Db, table: ReferencedTable, orgId: string, id: string): Promise<boolean> {
  const row = await db(TABLES[table]).select('id').where({ org_id: orgId, id }).first();
  return row !== undefined;
}
