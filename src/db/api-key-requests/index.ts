import type { Db } from '../knex';
import { TABLES } from '../tables';
import { acrossWorkspaces } from '../across-workspaces';

// Each API key's request log: written in batches by the background writer
// (src/api-key-requests/recorder.ts), one row per key per flush holding its requests' fields as
// arrays, paged by apiKeys.getRequests, purged by the retention job. Nothing else writes this
// table, and a write here changes no other row.

/** One recorded request, as stored: no body, input, header, secret or raw path. */
export interface KeyRequestRow {
  orgId: string;
  keyId: string;
  /** Time-ordered (request-id.ts): the page's order and its cursor. */
  id: string;
  at: Date;
  method: string;
  /** A procedure name, or a REST route pattern (`GET /api/v1/leads/{id}`). */
  procedure: string;
  status: number;
  errorCode: string | null;
  durationMs: number;
  requestId: string;
  clientAddress: string | null;
}

export type KeyRequest = Omit<KeyRequestRow, 'orgId' | 'keyId'>;

/** Which requests of a key to answer: an exact status, or every failure (>= 400) or success (< 400). */
export type StatusFilter = number | 'failed' | 'succeeded';

/** How long one flush's statement may run, on the server: a slow database fails the flush, never a request. */
export const INSERT_STATEMENT_TIMEOUT_MS = 2000;

/** A request to record, as the writer holds it: its time as epoch milliseconds (no Date per request). */
export type NewKeyRequest = Omit<KeyRequestRow, 'id' | 'at'> & { atMs: number };

/** The fields of one key's share of a flush, one array each, as the batch row stores them. */
interface KeyBatch {
  orgId: string;
  keyId: string;
  firstId: string;
  lastId: string;
  lastAtMs: number;
  ids: string[];
  atMs: number[];
  methods: string[];
  procedures: string[];
  statuses: number[];
  errorCodes: (string | null)[];
  durationsMs: number[];
  requestIds: string[];
  clientAddresses: (string | null)[];
}

function byKey(rows: readonly NewKeyRequest[], ids: readonly string[]): KeyBatch[] {
  const batches = new Map<string, KeyBatch>();
  rows.forEach((row, i) => {
    const id = ids[i]!;
    const key = `${row.orgId} ${row.keyId}`;
    let batch = batches.get(key);
    if (!batch) {
      batch = {
        orgId: row.orgId, keyId: row.keyId, firstId: id, lastId: id, lastAtMs: row.atMs, ids: [], atMs: [], methods: [], procedures: [],
        statuses: [], errorCodes: [], durationsMs: [], requestIds: [], clientAddresses: [],
      };
      batches.set(key, batch);
    }
    if (id < batch.firstId) batch.firstId = id;
    if (id > batch.lastId) batch.lastId = id;
    if (row.atMs > batch.lastAtMs) batch.lastAtMs = row.atMs;
    batch.ids.push(id);
    batch.atMs.push(row.atMs);
    batch.methods.push(row.method);
    batch.procedures.push(row.procedure);
    batch.statuses.push(row.status);
    batch.errorCodes.push(row.errorCode);
    batch.durationsMs.push(row.durationMs);
    batch.requestIds.push(row.requestId);
    batch.clientAddresses.push(row.clientAddress);
  });
  return [...batches.values()];
}

const BATCH_VALUES = '(?, ?, ?, ?, to_timestamp(? / 1000.0), ?::text[], ?::bigint[], ?::text[], ?::text[], ?::smallint[], ?::text[], ?::real[], ?::text[], ?::text[])';

/**
 * One insert of a flush's rows (`ids[i]` is `rows[i]`'s), in one short transaction with its own
 * statement timeout: one row per key, its requests' fields as one array each, so PostgreSQL
 * stores a tuple (its arrays compressed out of line) per key and flush rather than a tuple and an
 * index entry per request. The rows span workspaces (on Citus: shards), the exemption
 * acrossWorkspaces names.
 */
export function insertBatch(db: Db, rows: readonly NewKeyRequest[], ids: readonly string[]): Promise<void> {
  if (rows.length === 0) return Promise.resolve();
  const batches = byKey(rows, ids);
  const bindings = batches.flatMap((b) => [
    b.orgId, b.keyId, b.firstId, b.lastId, b.lastAtMs, b.ids, b.atMs, b.methods, b.procedures, b.statuses, b.errorCodes, b.durationsMs, b.requestIds, b.clientAddresses,
  ]);
  return acrossWorkspaces(db, async (trx) => {
    await trx.raw(`set local statement_timeout = ${INSERT_STATEMENT_TIMEOUT_MS}`);
    await trx.raw(
      `insert into ${TABLES.apiKeyRequestBatches} (org_id, key_id, first_id, last_id, last_at, ids, at_ms, methods, procedures, statuses,
         error_codes, durations_ms, request_ids, client_addresses)
       values ${batches.map(() => BATCH_VALUES).join(', ')}`,
      // Each array is one parameter (pg writes it as an array literal), nulls included.
      bindings as string[],
    );
  });
}

/** A batch's fields unpacked into one row a request (the arrays are as long as each other). */
const UNPACKED = `unnest(b.ids, b.at_ms, b.methods, b.procedures, b.statuses, b.error_codes, b.durations_ms, b.request_ids, b.client_addresses)
  as e(id, at_ms, method, procedure, status, error_code, duration_ms, request_id, client_address)`;

/** Batches read a round at first; doubled each round a page needs more, up to the last. */
const FIRST_ROUND_BATCHES = 8;
const MOST_ROUND_BATCHES = 512;

/**
 * A key's requests newest first, after the cursor `after` (an id answered before), `limit` + 1
 * read to tell whether more follow. The key's batches are read newest last id first, a round at a
 * time, each unpacked and filtered in the statement; a request is in the page once no batch left
 * to read can hold a newer one (every one left has a last id at most the round's lowest), so
 * batches that overlap in time (two instances' flushes) still interleave in id order.
 */
export async function pageOfKey(
  db: Db,
  orgId: string,
  keyId: string,
  filters: { status?: StatusFilter; procedure?: string },
  page: { after?: string; limit: number },
): Promise<{ requests: KeyRequest[]; more: boolean }> {
  const wanted = page.limit + 1;
  const found: UnpackedRow[] = [];
  let below: { lastId: string; firstId: string } | undefined;
  for (let round = FIRST_ROUND_BATCHES; ; round = Math.min(round * 2, MOST_ROUND_BATCHES)) {
    const { batches, rows } = await roundOfBatches(db, orgId, keyId, filters, page.after, below, round);
    found.push(...rows);
    found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    if (batches.length < round) break;
    below = batches.at(-1)!;
    const settled = found.findIndex((row) => row.id <= below!.lastId);
    if ((settled === -1 ? found.length : settled) >= wanted) break;
  }
  const more = found.length > page.limit;
  return { requests: found.slice(0, page.limit).map(toRequest), more };
}

interface UnpackedRow {
  id: string;
  at_ms: string;
  method: string;
  procedure: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  request_id: string;
  client_address: string | null;
}

/**
 * The next `limit` batches of a key below `below` (newest last id first) and their requests that
 * pass the filters: a batch with none still answers one row (its request fields null), so the
 * round knows how far it read.
 */
async function roundOfBatches(
  db: Db,
  orgId: string,
  keyId: string,
  filters: { status?: StatusFilter; procedure?: string },
  after: string | undefined,
  below: { lastId: string; firstId: string } | undefined,
  limit: number,
): Promise<{ batches: { lastId: string; firstId: string }[]; rows: UnpackedRow[] }> {
  const batchWhere = ['org_id = ?', 'key_id = ?'];
  const batchBindings: (string | number)[] = [orgId, keyId];
  if (after !== undefined) {
    batchWhere.push('first_id < ?');
    batchBindings.push(after);
  }
  if (below !== undefined) {
    batchWhere.push('(last_id, first_id) < (?, ?)');
    batchBindings.push(below.lastId, below.firstId);
  }
  const rowWhere: string[] = [];
  const rowBindings: (string | number)[] = [];
  if (after !== undefined) {
    rowWhere.push('e.id < ?');
    rowBindings.push(after);
  }
  const { status, procedure } = filters;
  if (status === 'failed') rowWhere.push('e.status >= 400');
  else if (status === 'succeeded') rowWhere.push('e.status < 400');
  else if (status !== undefined) {
    rowWhere.push('e.status = ?');
    rowBindings.push(status);
  }
  if (procedure !== undefined) {
    rowWhere.push('e.procedure = ?');
    rowBindings.push(procedure);
  }
  const { rows } = await db.raw<{ rows: (UnpackedRow & { batch_last_id: string; batch_first_id: string })[] }>(
    `select b.last_id as batch_last_id, b.first_id as batch_first_id, e.*
     from (select * from ${TABLES.apiKeyRequestBatches} where ${batchWhere.join(' and ')} order by last_id desc, first_id desc limit ?) b
     left join lateral (select e.* from ${UNPACKED} ${rowWhere.length > 0 ? `where ${rowWhere.join(' and ')}` : ''}) e on true
     order by b.last_id desc, b.first_id desc`,
    [...batchBindings, limit, ...rowBindings],
  );
  const batches: { lastId: string; firstId: string }[] = [];
  const requests: UnpackedRow[] = [];
  for (const row of rows) {
    const last = batches.at(-1);
    if (!last || last.lastId !== row.batch_last_id || last.firstId !== row.batch_first_id) {
      batches.push({ lastId: row.batch_last_id, firstId: row.batch_first_id });
    }
    if (row.id !== null) requests.push(row);
  }
  return { batches, rows: requests };
}

function toRequest(row: UnpackedRow): KeyRequest {
  return {
    id: row.id, at: new Date(Number(row.at_ms)), method: row.method, procedure: row.procedure, status: row.status, errorCode: row.error_code,
    durationMs: row.duration_ms, requestId: row.request_id, clientAddress: row.client_address,
  };
}

/**
 * Deletes up to `batchSize` batches whose newest request is older than `cutoff`, across
 * workspaces (the BRIN index on `last_at` finds them); answers how many requests went. The rows
 * are named by key, as Citus prunes shards by lists.
 */
export function purgeOlderThan(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  return acrossWorkspaces(db, async (trx) => {
    const { rows } = await trx.raw<{ rows: { org_id: string; key_id: string; first_id: string; requests: number }[] }>(
      `select org_id, key_id, first_id, cardinality(ids) as requests from ${TABLES.apiKeyRequestBatches} where last_at < ? limit ?`, [cutoff, batchSize],
    );
    if (rows.length === 0) return 0;
    const named = rows.map((r) => `${r.org_id} ${r.key_id} ${r.first_id}`);
    const { rows: deleted } = await trx.raw<{ rows: { requests: number }[] }>(
      `delete from ${TABLES.apiKeyRequestBatches}
       where org_id = any(?::text[]) and first_id = any(?::text[]) and org_id || ' ' || key_id || ' ' || first_id = any(?::text[]) and last_at < ?
       returning cardinality(ids) as requests`,
      [[...new Set(rows.map((r) => r.org_id))], rows.map((r) => r.first_id), named, cutoff],
    );
    return deleted.reduce((sum, row) => sum + row.requests, 0);
  });
}

/** Whether the workspace has this key (revoked and expired ones too: their log is still read). */
export async function keyExists(db: Db, orgId: string, keyId: string): Promise<boolean> {
  const row = await db(TABLES.apiKeys).first(db.raw('1 as found')).where({ org_id: orgId, id: keyId });
  return row !== undefined;
}
