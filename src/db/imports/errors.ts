import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { acrossWorkspaces } from '../across-workspaces';

// The rows an import could not take, one row per problem (a row with two bad fields has two), with
// the row as it was sent: personal data, kept in this one table (and the job's chunks until it
// ends), deleted with the import after the retention (IMPORTS_RETENTION_DAYS), and found by
// workspace (org_id) by anything that must erase a workspace's personal data.

export interface ImportError {
  /** The file's line where the row starts (1 is a CSV file's header). */
  line: number;
  /** The problem's number within its row. */
  issue: number;
  /** The field (a path like `phones.1`), or '' for the row as a whole. */
  field: string;
  message: string;
  rowText: string;
}

/** At most this many problems are kept per import; the rows beyond are still counted as failed. */
export const MAX_ERRORS_KEPT = 100_000;

export async function insertErrors(trx: Knex.Transaction, orgId: string, importId: string, errors: readonly ImportError[]): Promise<void> {
  if (errors.length === 0) return;
  await trx(TABLES.importErrors).insert(errors.map((e) => ({
    org_id: orgId, import_id: importId, line: e.line, issue: e.issue, field: e.field, message: e.message, row_text: e.rowText,
  })));
}

/** Up to `limit` problems after `after` (line, issue), in the file's order: the errors file is read in such pages. */
export async function errorsAfter(
  db: Db,
  orgId: string,
  importId: string,
  after: { line: number; issue: number } | undefined,
  limit: number,
): Promise<ImportError[]> {
  const query = db(TABLES.importErrors).where({ org_id: orgId, import_id: importId });
  if (after) query.whereRaw('(line, issue) > (?, ?)', [after.line, after.issue]);
  const rows: { line: number; issue: number; field: string; message: string; row_text: string }[] = await query
    .orderBy(['line', 'issue'])
    .limit(limit)
    .select('line', 'issue', 'field', 'message', 'row_text');
  return rows.map((r) => ({ line: r.line, issue: r.issue, field: r.field, message: r.message, rowText: r.row_text }));
}

/**
 * Deletes up to `batchSize` imports that ended before `cutoff`, of every workspace, with their
 * failed rows and any chunks left (foreign keys, on delete cascade); answers how many.
 */
export async function purgeEndedBefore(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  const result = await acrossWorkspaces(db, (trx) => trx.raw(
    `delete from ${TABLES.imports} where (org_id, id) in (select org_id, id from ${TABLES.imports} where finished_at < ? limit ?)`,
    [cutoff, batchSize],
  ));
  return result.rowCount ?? 0;
}
