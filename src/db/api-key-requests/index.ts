import type { Db } from '../knex';
import { TABLES } from '../tables';
import { acrossWorkspaces } from '../across-workspaces';

// Each API key's request log: written in batches by the background writer
// (src/api-key-requests/recorder.ts), paged by apiKeys.getRequests, purged by the retention job.
// Nothing else writes this table, and a write here changes no other row.

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

const COLUMNS = ['id', 'at', 'method', 'procedure', 'status', 'error_code', 'duration_ms', 'request_id', 'client_address'] as const;

/** How long one flush's statement may run, on the server: a slow database fails the flush, never a request. */
export const INSERT_STATEMENT_TIMEOUT_MS = 2000;

/** A request to record, as the writer holds it: its time as epoch milliseconds (no Date per request). */
export type NewKeyRequest = Omit<KeyRequestRow, 'id' | 'at'> & { atMs: number };

/**
 * One insert of a batch (`ids[i]` is `rows[i]`'s), in one short transaction with its own
 * statement timeout. The rows go as one array per column (`unnest`): a short statement with 11
 * parameters however many rows, built straight from the buffered objects, which costs the service
 * and the database far less than a VALUES list of 11 bindings a row. The rows span workspaces (on
 * Citus: shards), the exemption acrossWorkspaces names.
 */
export function insertBatch(db: Db, rows: readonly NewKeyRequest[], ids: readonly string[]): Promise<void> {
  if (rows.length === 0) return Promise.resolve();
  const columns = [
    rows.map((r) => r.orgId), rows.map((r) => r.keyId), ids, rows.map((r) => r.atMs), rows.map((r) => r.method), rows.map((r) => r.procedure),
    rows.map((r) => r.status), rows.map((r) => r.errorCode), rows.map((r) => r.durationMs), rows.map((r) => r.requestId), rows.map((r) => r.clientAddress),
  ];
  return acrossWorkspaces(db, async (trx) => {
    await trx.raw(`set local statement_timeout = ${INSERT_STATEMENT_TIMEOUT_MS}`);
    await trx.raw(
      `insert into ${TABLES.apiKeyRequests} (org_id, key_id, id, at, method, procedure, status, error_code, duration_ms, request_id, client_address)
       select org_id, key_id, id, to_timestamp(at_ms / 1000.0), method, procedure, status, error_code, duration_ms, request_id, client_address
       from unnest(?::text[], ?::text[], ?::text[], ?::float8[], ?::text[], ?::text[], ?::smallint[], ?::text[], ?::real[], ?::text[], ?::text[])
         as r(org_id, key_id, id, at_ms, method, procedure, status, error_code, duration_ms, request_id, client_address)`,
      // Each binding is one array parameter (pg writes it as an array literal), nulls included.
      columns as string[][],
    );
  });
}

/** A key's requests newest first, after the cursor `after` (an id answered before), `limit` + 1 read to tell whether more follow. */
export async function pageOfKey(
  db: Db,
  orgId: string,
  keyId: string,
  filters: { status?: StatusFilter; procedure?: string },
  page: { after?: string; limit: number },
): Promise<{ requests: KeyRequest[]; more: boolean }> {
  const query = db(TABLES.apiKeyRequests).select(COLUMNS).where({ org_id: orgId, key_id: keyId });
  if (page.after !== undefined) query.where('id', '<', page.after);
  const { status, procedure } = filters;
  if (status === 'failed') query.where('status', '>=', 400);
  else if (status === 'succeeded') query.where('status', '<', 400);
  else if (status !== undefined) query.where('status', status);
  if (procedure !== undefined) query.where('procedure', procedure);
  const rows = (await query.orderBy('id', 'desc').limit(page.limit + 1)) as Row[];
  const more = rows.length > page.limit;
  return { requests: rows.slice(0, page.limit).map(toRequest), more };
}

interface Row {
  id: string;
  at: Date;
  method: string;
  procedure: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  request_id: string;
  client_address: string | null;
}

function toRequest(row: Row): KeyRequest {
  return {
    id: row.id, at: row.at, method: row.method, procedure: row.procedure, status: row.status, errorCode: row.error_code,
    durationMs: row.duration_ms, requestId: row.request_id, clientAddress: row.client_address,
  };
}

/**
 * Deletes up to `batchSize` rows older than `cutoff`, across workspaces (the BRIN index on `at`
 * finds them); answers how many went. The rows are named by key, as Citus prunes shards by lists.
 */
export function purgeOlderThan(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  return acrossWorkspaces(db, async (trx) => {
    const { rows } = await trx.raw<{ rows: { org_id: string; id: string }[] }>(
      `select org_id, id from ${TABLES.apiKeyRequests} where at < ? limit ?`, [cutoff, batchSize],
    );
    if (rows.length === 0) return 0;
    const result = await trx.raw(
      `delete from ${TABLES.apiKeyRequests} where org_id = any(?::text[]) and id = any(?::text[]) and org_id || ' ' || id = any(?::text[])`,
      [[...new Set(rows.map((r) => r.org_id))], rows.map((r) => r.id), rows.map((r) => `${r.org_id} ${r.id}`)],
    );
    return result.rowCount ?? 0;
  });
}

/** Whether the workspace has this key (revoked and expired ones too: their log is still read). */
export async function keyExists(db: Db, orgId: string, keyId: string): Promise<boolean> {
  const row = await db(TABLES.apiKeys).first(db.raw('1 as found')).where({ org_id: orgId, id: keyId });
  return row !== undefined;
}
