import type { Db } from '../db/knex';
import * as importsQueries from '../db/imports';
import * as orgsQueries from '../db/orgs';
import { insertEvents } from '../db/events';
import { newEvents } from '../events/record-events';
import { decodeChunk } from './stored-rows';
import { parseBatch, writeBatch } from './import-batch';
import type { UploadedRow } from './read-upload';

export interface RunSettings {
  db: Db;
  leaseMs: number;
  batchRows: number;
  /** Told after each committed batch and at the end: the workspace's live readers are woken. */
  onCommitted?(orgId: string): void;
  /** Checked between batches: true stops the job where it is (its lease is given up, another worker resumes it). */
  shouldStop(): boolean;
}

/** How a job's run ended: it ended (succeeded or failed), was taken from this worker (cancelled, lease lost), or was stopped between batches. */
export type RunOutcome = 'ended' | 'lost' | 'stopped';

/**
 * Runs a claimed import from its cursor to its end: its chunks in order, a chunk at a time, in
 * batches of `batchRows` (each its own transaction with the cursor: import-batch.ts), then ends it
 * with `import.completed` (no event in a dry run). Batch N+1 is parsed while batch N is written
 * (the worker's CPU and the database's beside each other); the writes stay one at a time, in
 * order, each after the one before committed, so the cursor only ever passes committed rows. A
 * throw (the database went away) leaves the job at its last committed batch, for the caller to retry.
 */
export async function runImport(settings: RunSettings, claim: importsQueries.ClaimedImport): Promise<RunOutcome> {
  const { db } = settings;
  const orgId = claim.row.org_id;
  const org = await orgsQueries.getById(db, orgId);
  const job = { db, claim, phoneRegion: org?.phoneRegion ?? 'GB', leaseMs: settings.leaseMs, seenExternalIds: new Set<string>() };
  let from: importsQueries.ImportCursor = { chunk: claim.row.cursor_chunk, record: claim.row.cursor_record };
  let batch: UploadedRow[] = [];
  let to = from;
  /** The batch being written: answers whether it committed for this claim. */
  let writing: Promise<boolean> | undefined;
  /** Waits for the batch in flight; answers what the run must end with, if anything. */
  const settle = async (): Promise<RunOutcome | undefined> => {
    if (!writing) return undefined;
    const committed = await writing;
    writing = undefined;
    if (!committed) return 'lost';
    return settings.shouldStop() ? 'stopped' : undefined;
  };
  const flush = async (): Promise<RunOutcome | undefined> => {
    const parsed = await parseBatch(job, batch);
    const ended = await settle();
    if (ended) return ended;
    const [batchFrom, batchTo] = [from, to];
    writing = writeBatch(job, parsed, batchFrom, batchTo).then((after) => {
      if (after) settings.onCommitted?.(orgId);
      return after !== undefined;
    });
    // Its failure is taken up by the next settle(); until then it must not count as unhandled.
    writing.catch(() => undefined);
    from = to;
    batch = [];
    return undefined;
  };
  try {
    for (let seq = from.chunk; ; seq++) {
      const chunk = await importsQueries.readChunk(db, orgId, claim.row.id, seq);
      if (!chunk) break;
      const rows = decodeChunk(chunk.data);
      for (let i = seq === from.chunk ? from.record : 0; i < rows.length; i++) {
        batch.push(rows[i]!);
        to = i + 1 === rows.length ? { chunk: seq + 1, record: 0 } : { chunk: seq, record: i + 1 };
        if (batch.length >= settings.batchRows) {
          const ended = await flush();
          if (ended) return ended;
        }
      }
    }
    if (batch.length > 0) {
      const ended = await flush();
      if (ended) return ended;
    }
    if (writing && !(await writing)) return 'lost';
  } catch (err) {
    // The caller gives the job up on a throw: not while a batch of it is still being written.
    await writing?.catch(() => undefined);
    throw err;
  }
  return (await endImport(settings, claim, { status: 'succeeded' })) ? 'ended' : 'lost';
}

/** Ends the job (its chunks go) and records import.completed or import.failed with it, unless it is a dry run. */
export async function endImport(
  settings: Pick<RunSettings, 'db' | 'onCommitted'>,
  claim: importsQueries.ClaimedImport,
  end: { status: 'succeeded' | 'failed'; failure?: string },
): Promise<boolean> {
  const ended = await settings.db.transaction(async (trx) => {
    const row = await importsQueries.finish(trx, claim, end);
    if (!row) return false;
    if (!row.dry_run) {
      const source = { orgId: row.org_id, actor: { kind: row.actor_kind, id: row.actor_id } };
      const type = end.status === 'succeeded' ? 'import.completed' : 'import.failed';
      await insertEvents(trx, newEvents(source, [{ type, object: importsQueries.toImport(row) }]));
    }
    return true;
  });
  if (ended) settings.onCommitted?.(claim.row.org_id);
  return ended;
}
