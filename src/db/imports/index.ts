import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { paginate } from '../paginate';
import type { PageRequest } from '../pagination';

// Import jobs (migration 20261213120000): the job's row, the uploaded rows in chunks, the failed
// rows. The job's steps are in src/imports; its leads are written by src/db/leads/import-batch.ts.
// chunks.ts reads and writes the chunks, errors.ts the failed rows, jobs.ts the claims and the
// cursor.
export * from './chunks';
export * from './errors';
export * from './jobs';
export * from './rows';
import type { ImportMode, ImportRow, Import } from './rows';
import { IMPORT_COLUMNS, toImport } from './rows';

export interface NewImport {
  id: string;
  mode: ImportMode;
  dryRun: boolean;
  format: 'csv' | 'ndjson';
  actor: { kind: string; id: string };
}

/**
 * The import's row as an upload begins, in the upload's transaction: queued, with no rows yet.
 * Nobody sees it before the transaction commits with every chunk (`receive`), so a failed or
 * abandoned upload leaves nothing behind.
 */
export async function insertImport(trx: Knex.Transaction, orgId: string, created: NewImport): Promise<void> {
  await trx(TABLES.imports).insert({
    org_id: orgId, id: created.id, resource: 'leads', mode: created.mode, dry_run: created.dryRun, format: created.format,
    status: 'queued', actor_kind: created.actor.kind, actor_id: created.actor.id, rows_total: 0,
  });
}

/** The upload's end: how many rows it holds, and the CSV header's columns. */
export async function receive(trx: Knex.Transaction, orgId: string, id: string, received: { total: number; columns: string[] | null }): Promise<ImportRow> {
  const [row] = await trx(TABLES.imports)
    .where({ org_id: orgId, id })
    .update({ rows_total: received.total, columns: received.columns })
    .returning(IMPORT_COLUMNS);
  return row as ImportRow;
}

export async function getById(db: Db, orgId: string, id: string): Promise<ImportRow | undefined> {
  return db(TABLES.imports).where({ org_id: orgId, id }).first(IMPORT_COLUMNS);
}

/** A page of the workspace's imports, newest first. */
export async function list(db: Db, orgId: string, page: PageRequest): Promise<{ imports: Import[]; total: number }> {
  const { items, total } = await paginate<ImportRow, Import>({
    filtered: () => db(TABLES.imports).where({ org_id: orgId }),
    select: IMPORT_COLUMNS,
    orderBy: 'created_at desc, id desc',
    page,
    toItem: toImport,
  });
  return { imports: items, total };
}

/** How many of the workspace's imports wait for a worker (the queue limit counts them). */
export async function countQueued(db: Db, orgId: string): Promise<number> {
  const [row] = await db(TABLES.imports).where({ org_id: orgId, status: 'queued' }).count({ n: '*' });
  return Number((row as { n: string }).n);
}
