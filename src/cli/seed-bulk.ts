import type { Db } from '../db/knex';
import * as orgsQueries from '../db/queries/orgs.queries';
import * as membersQueries from '../db/queries/members.queries';
import * as bulkSeedQueries from '../db/queries/bulk-seed.queries';
import * as deferredIndexesQueries from '../db/queries/deferred-indexes.queries';
import { foldAllCounterShards } from '../db/counter-folding';
import { AppError } from '../errors/app-error';

export interface SeedBulkOptions {
  orgId: string;
  leads: number;
  /** Rows per statement (and transaction): large enough to be set-based, small enough to show progress. */
  batchSize?: number;
  /** Batches loaded at once, each on its own connection. */
  concurrency?: number;
  /**
   * Drop the loaded tables' secondary indexes for the load and build them again after it: much
   * faster for a load as large as the tables, but every workspace's lists and searches go without
   * those indexes meanwhile. `true` always does; `false` never does (every row through every
   * index). 'auto', the default, does when no other workspace has rows in those tables (a new
   * database, the benchmark's), so that nobody else's lists and searches lose their indexes.
   */
  rebuildIndexes?: boolean | 'auto';
  onProgress?: (done: number, total: number) => void;
}

export interface SeedBulkResult {
  orgId: string;
  leads: number;
  members: number;
  /** To the last batch's commit: the leads are all there and counted (in unfolded shards). */
  loadSeconds: number;
  /** Secondary indexes this load dropped to build after it (0: it went through every index). */
  indexesDropped: number;
  /** Indexes built again after the load: those it dropped, and any an interrupted load left dropped. */
  indexesRebuilt: number;
  /** Of `seconds`, building the indexes again. */
  indexesSeconds: number;
  /** Of `seconds`, the closing VACUUM (ANALYZE). */
  vacuumSeconds: number;
  /** Everything, with rebuilding indexes, folding the counters and the closing VACUUM (ANALYZE). */
  seconds: number;
}

const DEFAULT_MEMBERS = ['Alex Morgan', 'Sam Carter', 'Jordan Blake', 'Taylor Reid', 'Casey Quinn'];

/**
 * Loads `leads` realistic leads (each with its contact; converted ones with a client) into an
 * existing workspace, in batches of set-based inserts. A workspace without members gets five,
 * so assignees have someone to point at.
 */
export async function seedBulk(db: Db, options: SeedBulkOptions): Promise<SeedBulkResult> {
  const started = performance.now();
  const org = await orgsQueries.getById(db, options.orgId);
  if (!org) throw new AppError('NOT_FOUND', `no workspace ${options.orgId}`);
  // An earlier load that died before building its indexes again: build them before anything else.
  let indexesRebuilt = (await deferredIndexesQueries.rebuildDeferredIndexes(db)).length;
  let memberIds = await bulkSeedQueries.memberIdsOf(db, org.id);
  if (memberIds.length === 0) {
    for (const [i, name] of DEFAULT_MEMBERS.entries()) {
      const email = `${name.toLowerCase().replace(' ', '.')}.${i}@${org.id.toLowerCase()}.example`;
      await membersQueries.create(db, org.id, { name, email });
    }
    memberIds = await bulkSeedQueries.memberIdsOf(db, org.id);
  }
  const batchSize = options.batchSize ?? 50_000;
  // A random offset per run keeps phones distinct between runs into the same workspace.
  const phoneOffset = Math.floor(Math.random() * 100_000_000);
  const starts = Array.from({ length: Math.ceil(options.leads / batchSize) }, (_, i) => 1 + i * batchSize);
  const rebuild = options.rebuildIndexes ?? 'auto';
  const dropped = rebuild === false ? [] : await deferredIndexesQueries.deferSecondaryIndexes(db, bulkSeedQueries.INSERTED_TABLES, rebuild === 'auto' ? { onlyIfAloneIn: org.id } : {});
  let done = 0;
  options.onProgress?.(0, options.leads);
  // The load is CPU-bound in PostgreSQL (index and trigram maintenance): two connections use two cores.
  const worker = async () => {
    for (let from = starts.shift(); from !== undefined; from = starts.shift()) {
      const to = Math.min(options.leads, from + batchSize - 1);
      await bulkSeedQueries.insertBatch(db, { orgId: org.id, memberIds, region: org.phoneRegion, from, to, total: options.leads, phoneOffset });
      done += to - from + 1;
      options.onProgress?.(done, options.leads);
    }
  };
  let loaded = started;
  let indexed = started;
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 2, starts.length) }, worker));
  } finally {
    // Built even when a batch failed, so a failed load leaves no index dropped (a process that
    // dies here leaves them listed in deferred_indexes instead).
    loaded = performance.now();
    indexesRebuilt += (await deferredIndexesQueries.rebuildDeferredIndexes(db)).length;
    indexed = performance.now();
  }
  // Each batch added to a random shard of its counters: fold them, as the service would within a minute.
  await foldAllCounterShards(db);
  const vacuumStarted = performance.now();
  await bulkSeedQueries.vacuumAnalyse(db);
  const finished = performance.now();
  const tenths = (ms: number) => Math.round(ms / 100) / 10;
  return {
    orgId: org.id, leads: options.leads, members: memberIds.length, loadSeconds: tenths(loaded - started),
    indexesDropped: dropped.length, indexesRebuilt, indexesSeconds: tenths(indexed - loaded),
    vacuumSeconds: tenths(finished - vacuumStarted), seconds: tenths(finished - started),
  };
}

/** A one-line progress bar for a terminal (redrawn with \r), or a line per tenth otherwise. */
export function progressBar(out: { write(text: string): unknown }, isTty: boolean): (done: number, total: number) => void {
  const started = performance.now();
  let lastTenth = -1;
  return (done, total) => {
    const share = total === 0 ? 1 : done / total;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const line = `[${'#'.repeat(Math.round(share * 30)).padEnd(30, '.')}] ${done}/${total} leads ${seconds}s`;
    if (isTty) {
      out.write(`\r${line}${done === total ? '\n' : ''}`);
    } else if (Math.floor(share * 10) > lastTenth) {
      lastTenth = Math.floor(share * 10);
      out.write(`${line}\n`);
    }
  };
}
