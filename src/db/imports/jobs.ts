import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { acrossWorkspaces } from '../across-workspaces';
import { deleteChunks } from './chunks';
import { IMPORT_COLUMNS, type ImportRow, type ImportStatus } from './rows';

// Running an import: a worker claims a job with a lease, moves its cursor with each batch (in
// the batch's transaction, and only while it still holds the lease), and ends it. A worker that
// dies leaves a lease that runs out; the next claim takes the job up at its cursor.

/** Where a job is in its rows: the chunk, and how many of that chunk's rows are done. */
export interface ImportCursor {
  chunk: number;
  record: number;
}

/** A job a worker holds: the row as claimed, and the token every write of it must show. */
export interface ClaimedImport {
  row: ImportRow;
  token: string;
}

/**
 * Cross-workspace: the workspaces with an import waiting or a lease run out, the longest waiting
 * first (only `orgIds`' when given). It reads every workspace's imports (every shard on Citus), so it runs as an exemption.
 */
export async function workspacesWithImportsToRun(db: Db, limit: number, orgIds?: readonly string[]): Promise<string[]> {
  const orgFilter = orgIds ? 'and org_id = any(?::text[])' : '';
  const result = await acrossWorkspaces(db, (trx) => trx.raw(
    `select org_id from ${TABLES.imports}
     where status in ('queued', 'running') and (locked_until is null or locked_until < now()) ${orgFilter}
     group by org_id order by min(created_at) limit ?`,
    [...(orgIds ? [[...orgIds]] : []), limit],
  ));
  return (result.rows as { org_id: string }[]).map((r) => r.org_id);
}

/**
 * Claims the workspace's next job, if it runs fewer than `maxRunning`: one whose lease ran out (a
 * worker died: resumed first), else the oldest queued. The workspace's claims take a transaction
 * lock on its id in turn, so two workers never both see room for one more job.
 */
export async function claimIn(db: Db, orgId: string, options: { maxRunning: number; leaseMs: number }): Promise<ClaimedImport | undefined> {
  const token = randomUUID();
  return db.transaction(async (trx) => {
    await trx.raw(`select pg_advisory_xact_lock(hashtextextended('imports:' || ?, 0))`, [orgId]);
    const { rows } = await trx.raw<{ rows: ImportRow[] }>(
      `with next as materialized (
         select id from ${TABLES.imports}
         where org_id = ? and (status = 'queued' or (status = 'running' and locked_until < now()))
           and (select count(*) from ${TABLES.imports} r where r.org_id = ? and r.status = 'running' and r.locked_until >= now()) < ?
         order by status = 'running' desc, created_at, id
         limit 1
         for update skip locked
       )
       update ${TABLES.imports} i
       set status = 'running', lease_token = ?, locked_until = now() + make_interval(secs => ?::double precision / 1000),
         attempts = i.attempts + 1
       from next
       where i.org_id = ? and i.id = next.id
       returning ${IMPORT_COLUMNS.map((c) => `i.${c}`).join(', ')}`,
      [orgId, orgId, options.maxRunning, token, options.leaseMs, orgId],
    );
    return rows[0] && { row: rows[0], token };
  });
}

/** What one batch adds to the job's counts. */
export interface BatchCounts {
  processed: number;
  created: number;
  updated: number;
  failed: number;
  /** Problems recorded in import_errors. */
  errors: number;
}

/**
 * The first statement of a batch's transaction: locks the job's row while this claim holds it and
 * its cursor is at `from`. The row stays locked until the batch commits, so a cancel (or a second
 * worker) waits for it. Answers false when the job is no longer this claim's (cancelled, or its
 * lease taken over): nothing of the batch may then be written.
 */
export async function holdForBatch(trx: Knex.Transaction, claim: ClaimedImport, from: ImportCursor): Promise<boolean> {
  const row = await trx(TABLES.imports)
    .where({ org_id: claim.row.org_id, id: claim.row.id, lease_token: claim.token, status: 'running', cursor_chunk: from.chunk, cursor_record: from.record })
    .forUpdate()
    .first('id');
  return row !== undefined;
}

/**
 * The last statement of a batch's transaction (after holdForBatch): moves the cursor to `to`, adds
 * the batch's counts and renews the lease, so the rows and the cursor commit together.
 */
export async function advance(trx: Knex.Transaction, claim: ClaimedImport, move: { to: ImportCursor; counts: BatchCounts; leaseMs: number }): Promise<ImportRow> {
  const { to, counts } = move;
  const [row] = await trx(TABLES.imports)
    .where({ org_id: claim.row.org_id, id: claim.row.id, lease_token: claim.token })
    .update({
      cursor_chunk: to.chunk,
      cursor_record: to.record,
      rows_processed: trx.raw('rows_processed + ?', [counts.processed]),
      rows_created: trx.raw('rows_created + ?', [counts.created]),
      rows_updated: trx.raw('rows_updated + ?', [counts.updated]),
      rows_failed: trx.raw('rows_failed + ?', [counts.failed]),
      errors_recorded: trx.raw('errors_recorded + ?', [counts.errors]),
      locked_until: trx.raw('now() + make_interval(secs => ?::double precision / 1000)', [move.leaseMs]),
    })
    .returning(IMPORT_COLUMNS);
  return row as ImportRow;
}

/**
 * Ends the job this claim holds (succeeded, or failed with why) and deletes its chunks; answers
 * the row as it ends, or undefined when the claim no longer holds it (cancelled meanwhile).
 */
export async function finish(
  trx: Knex.Transaction,
  claim: ClaimedImport,
  end: { status: Extract<ImportStatus, 'succeeded' | 'failed'>; failure?: string },
): Promise<ImportRow | undefined> {
  const [row] = await trx(TABLES.imports)
    .where({ org_id: claim.row.org_id, id: claim.row.id, lease_token: claim.token, status: 'running' })
    .update({ status: end.status, failure: end.failure ?? null, finished_at: trx.fn.now(), lease_token: null, locked_until: null })
    .returning(IMPORT_COLUMNS);
  if (row) await deleteChunks(trx, claim.row.org_id, claim.row.id);
  return row as ImportRow | undefined;
}

/** An attempt that failed (not a row: the database went away, say): the job waits `retryMs` and is claimed again at its cursor. */
export async function release(db: Db, claim: ClaimedImport, retryMs: number): Promise<void> {
  await db(TABLES.imports)
    .where({ org_id: claim.row.org_id, id: claim.row.id, lease_token: claim.token })
    .update({ lease_token: null, locked_until: db.raw('now() + make_interval(secs => ?::double precision / 1000)', [retryMs]) });
}

/**
 * Cancels a queued or running import: it keeps the rows its committed batches wrote (a batch in
 * flight commits first: the update waits for its lock) and its chunks go. Answers the import as
 * it now is (unchanged when it had already ended), or undefined when the workspace has none.
 */
export async function cancel(db: Db, orgId: string, id: string): Promise<ImportRow | undefined> {
  return db.transaction(async (trx) => {
    const [row] = await trx(TABLES.imports)
      .where({ org_id: orgId, id })
      .whereIn('status', ['queued', 'running'])
      .update({ status: 'cancelled', finished_at: trx.fn.now(), lease_token: null, locked_until: null })
      .returning(IMPORT_COLUMNS);
    if (row) {
      await deleteChunks(trx, orgId, id);
      return row as ImportRow;
    }
    const current: ImportRow | undefined = await trx(TABLES.imports).where({ org_id: orgId, id }).first(IMPORT_COLUMNS);
    return current;
  });
}
