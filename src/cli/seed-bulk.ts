import type { Db } from '../db/knex';
import * as orgsQueries from '../db/orgs';
import * as membersQueries from '../db/members';
import * as bulkSeed from '../db/leads/bulk-seed';
import * as deferredIndexesQueries from '../db/deferred-indexes';
import { foldWorkspaceCounters } from '../db/leads/counters';
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
  /** Leads loaded so far, after each batch (and 0 first). */
  onProgress?: (done: number, total: number) => void;
  /** Each phase as it starts and ends, for a caller that shows them (the CLI renders them on stderr). */
  onPhase?: (event: SeedBulkPhaseEvent) => void;
}

/**
 * The phases of a load, in order: `prepare` (the workspace, its members, and any index an
 * interrupted load left dropped), `load` (the batches), `indexes` (building again those dropped
 * for the load), `counters` (folding the counter shards the batches spread), `vacuum` (the
 * closing VACUUM (ANALYZE)). `seconds` is the phase's own time.
 */
export type SeedBulkPhaseEvent =
  | { phase: 'prepare'; state: 'start'; orgId: string }
  | { phase: 'prepare'; state: 'end'; seconds: number; membersAdded: number; indexesRebuilt: string[] }
  | { phase: 'load'; state: 'start'; leads: number; members: number; batches: number; concurrency: number }
  | { phase: 'load'; state: 'end'; seconds: number; leads: number; failed: boolean }
  | { phase: 'indexes'; state: 'start'; dropped: string[] }
  | { phase: 'indexes'; state: 'index'; name: string; position: number; of: number }
  | { phase: 'indexes'; state: 'end'; seconds: number; built: string[] }
  | { phase: 'counters'; state: 'start' }
  | { phase: 'counters'; state: 'end'; seconds: number; folded: number }
  | { phase: 'vacuum'; state: 'start'; tables: readonly string[] }
  | { phase: 'vacuum'; state: 'end'; seconds: number };

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
  const report = options.onPhase ?? (() => {});
  const tenths = (ms: number) => Math.round(ms / 100) / 10;
  const since = (from: number) => tenths(performance.now() - from);
  const org = await orgsQueries.getById(db, options.orgId);
  if (!org) throw new AppError('NOT_FOUND', `no workspace ${options.orgId}`);
  report({ phase: 'prepare', state: 'start', orgId: org.id });
  // An earlier load that died before building its indexes again: build them before anything else.
  const leftOver = await deferredIndexesQueries.rebuildDeferredIndexes(db);
  let indexesRebuilt = leftOver.length;
  let memberIds = await bulkSeed.memberIdsOf(db, org.id);
  const membersAdded = memberIds.length === 0 ? DEFAULT_MEMBERS.length : 0;
  if (memberIds.length === 0) {
    for (const [i, name] of DEFAULT_MEMBERS.entries()) {
      const email = `${name.toLowerCase().replace(' ', '.')}.${i}@${org.id.toLowerCase()}.example`;
      await membersQueries.create(db, org.id, { name, email });
    }
    memberIds = await bulkSeed.memberIdsOf(db, org.id);
  }
  const batchSize = options.batchSize ?? 50_000;
  // A random offset per run keeps phones distinct between runs into the same workspace.
  const phoneOffset = Math.floor(Math.random() * 100_000_000);
  const starts = Array.from({ length: Math.ceil(options.leads / batchSize) }, (_, i) => 1 + i * batchSize);
  const rebuild = options.rebuildIndexes ?? 'auto';
  const dropped = rebuild === false ? [] : await deferredIndexesQueries.deferSecondaryIndexes(db, bulkSeed.INSERTED_TABLES, rebuild === 'auto' ? { onlyIfAloneIn: org.id } : {});
  report({ phase: 'prepare', state: 'end', seconds: since(started), membersAdded, indexesRebuilt: leftOver });
  const concurrency = Math.min(options.concurrency ?? 2, starts.length);
  const loadStarted = performance.now();
  report({ phase: 'load', state: 'start', leads: options.leads, members: memberIds.length, batches: starts.length, concurrency });
  let done = 0;
  let analysed = false;
  options.onProgress?.(0, options.leads);
  // The load is CPU-bound in PostgreSQL (index and trigram maintenance): two connections use two cores.
  const worker = async () => {
    for (let from = starts.shift(); from !== undefined; from = starts.shift()) {
      const to = Math.min(options.leads, from + batchSize - 1);
      await bulkSeed.insertBatch(db, { orgId: org.id, memberIds, region: org.phoneRegion, from, to, total: options.leads, phoneOffset });
      done += to - from + 1;
      // Once the first batch is in, the statistics learn the workspace: planned as an empty one,
      // each later batch's keyed lookups walked the workspace's rows, and the load slowed as it grew.
      if (!analysed) {
        analysed = true;
        await bulkSeed.analyseLoaded(db);
      }
      options.onProgress?.(done, options.leads);
    }
  };
  let loaded = started;
  let indexed = started;
  let failed = true;
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
    failed = false;
  } finally {
    // Built even when a batch failed, so a failed load leaves no index dropped (a process that
    // dies here leaves them listed in deferred_indexes instead).
    loaded = performance.now();
    report({ phase: 'load', state: 'end', seconds: tenths(loaded - loadStarted), leads: done, failed });
    report({ phase: 'indexes', state: 'start', dropped: dropped.map((index) => index.name) });
    const built = await deferredIndexesQueries.rebuildDeferredIndexes(db, undefined, (index) => report({ phase: 'indexes', state: 'index', ...index }));
    indexesRebuilt += built.length;
    indexed = performance.now();
    report({ phase: 'indexes', state: 'end', seconds: tenths(indexed - loaded), built });
  }
  // Each batch added to its session's counter rows: fold them, as the service would within a second.
  report({ phase: 'counters', state: 'start' });
  const folded = await foldWorkspaceCounters(db, org.id);
  report({ phase: 'counters', state: 'end', seconds: since(indexed), folded });
  const vacuumStarted = performance.now();
  report({ phase: 'vacuum', state: 'start', tables: bulkSeed.LOADED_TABLES });
  await bulkSeed.vacuumAnalyse(db);
  const finished = performance.now();
  report({ phase: 'vacuum', state: 'end', seconds: tenths(finished - vacuumStarted) });
  return {
    orgId: org.id, leads: options.leads, members: memberIds.length, loadSeconds: tenths(loaded - started),
    indexesDropped: dropped.length, indexesRebuilt, indexesSeconds: tenths(indexed - loaded),
    vacuumSeconds: tenths(finished - vacuumStarted), seconds: tenths(finished - started),
  };
}

// bench/lib/dataset.ts draws its load with it, imported from here.
