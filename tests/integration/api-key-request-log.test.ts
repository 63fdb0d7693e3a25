import request from 'supertest';
import { createTestContext, createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { startTcpProxy } from '../helpers/tcp-proxy';
import { createOrg, createWorkspace, unique } from '../helpers/factories';
import { errorOf, resultOf, rpcGet, rpcPost } from '../helpers/rpc';
import { createRegistry } from '../../src/rpc/registry';
import { procedures } from '../../src/procedures';
import { createKeyRequestRecorder } from '../../src/api-key-requests/recorder';
import { purgeExpiredKeyRequests } from '../../src/api-key-requests/retention';
import { requestLogId } from '../../src/api-key-requests/request-id';
import * as apiKeysQueries from '../../src/db/api-keys';
import * as apiKeyRequestsQueries from '../../src/db/api-key-requests';
import { generateApiKeySecret } from '../../src/domain/api-key-secret';
import { newId } from '../../src/domain/ids';
import { createLogger } from '../../src/logger';
import { createDb, type Db } from '../../src/db/knex';

// Each API key's request log through real HTTP: the app records every answer to a key, the
// recorder writes in the background (flushed here on demand rather than waited for), and
// apiKeys.getRequests, exposed in this app as the developer page's would call it, reads it back.

const db = createTestDb();
// A flush only when the test asks (an hour's interval): what is stored is exactly what was flushed.
const recorder = createKeyRequestRecorder({ db, logger: createLogger('silent'), intervalMs: 3_600_000 });
const ctx = createTestContext({
  db,
  keyRequests: recorder,
  registry: createRegistry(procedures.map((p) => (p.name.startsWith('apiKeys.') ? { ...p, exposed: true } : p))),
});
afterAll(() => ctx.close());

/** A key with the app-only read scope, written straight to the table (createKey refuses scopes no exposed procedure has). */
async function readerKey(orgId: string): Promise<string> {
  const secret = generateApiKeySecret();
  await apiKeysQueries.insert(db, orgId, {
    id: newId('key'), memberId: null, name: unique('log reader'), prefix: secret.prefix, secretHash: secret.hash, scopes: ['apiKeys.read'], expiresAt: null,
  });
  return secret.secret;
}

async function workspace() {
  const ws = await createWorkspace(db);
  return { ...ws, reader: await readerKey(ws.org.id) };
}

async function logOf(reader: string, input: Record<string, unknown>) {
  const res = await rpcGet(ctx.app, 'apiKeys.getRequests', input, reader);
  expect(res.status).toBe(200);
  return resultOf<{ requests: Record<string, any>[]; nextCursor: string | null }>(res);
}

/** Everything stored for a workspace's keys, as text. */
async function storedText(orgId: string): Promise<string> {
  const rows = await db('api_key_request_batches').where({ org_id: orgId });
  return JSON.stringify(rows);
}

/** A workspace's stored requests, one a request, unpacked from the key's batches. */
async function storedRequests(orgId: string, keyId?: string): Promise<Record<string, any>[]> {
  const { rows } = await db.raw(
    `select e.* from api_key_request_batches b,
       unnest(b.ids, b.at_ms, b.methods, b.procedures, b.statuses, b.error_codes, b.durations_ms, b.request_ids, b.client_addresses)
         as e(id, at_ms, method, procedure, status, error_code, duration_ms, request_id, client_address)
     where b.org_id = ? ${keyId ? 'and b.key_id = ?' : ''}`,
    keyId ? [orgId, keyId] : [orgId],
  );
  return rows;
}

describe('GET apiKeys.getRequests: what is recorded', () => {
  it('records an RPC GET and POST, a REST call, a 403 and a 400 with their fields, newest first', async () => {
    const ws = await workspace();
    const started = Date.now();
    const created = await rpcPost(ctx.app, 'leads.create', { name: unique('Lead'), phone: '+442079460001' }, ws.key).set('X-Request-Id', 'req-log-test-1');
    expect(created.status).toBe(200);
    const leadId = resultOf(created).id as string;
    expect((await rpcGet(ctx.app, 'leads.getById', { id: leadId }, ws.key)).status).toBe(200);
    expect((await request(ctx.app).get(`/api/v1/leads/${leadId}`).set('Authorization', `Bearer ${ws.key}`)).status).toBe(200);
    // app-only with this key: 403; a wrong input: 400.
    expect((await rpcGet(ctx.app, 'apiKeys.list', undefined, ws.key)).status).toBe(403);
    expect((await rpcPost(ctx.app, 'leads.create', { name: '' }, ws.key)).status).toBe(400);
    await recorder.flush();

    const { requests, nextCursor } = await logOf(ws.reader, { id: ws.keyId });
    expect(nextCursor).toBeNull();
    expect(requests.map((r) => [r.method, r.procedure, r.status, r.errorCode])).toEqual([
      ['POST', 'leads.create', 400, 'BAD_REQUEST'],
      ['GET', 'apiKeys.list', 403, 'FORBIDDEN'],
      ['GET', 'GET /api/v1/leads/{id}', 200, null],
      ['GET', 'leads.getById', 200, null],
      ['POST', 'leads.create', 200, null],
    ]);
    const first = requests.at(-1)!;
    expect(first.requestId).toBe('req-log-test-1');
    expect(first.at).toBeInstanceOf(Date);
    expect(first.at.getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect(first.at.getTime()).toBeLessThanOrEqual(Date.now());
    expect(first.durationMs).toBeGreaterThan(0);
    expect(first.clientAddress).toMatch(/127\.0\.0\.1|::1/);
    expect(Object.keys(first).sort()).toEqual(['at', 'clientAddress', 'durationMs', 'errorCode', 'id', 'method', 'procedure', 'requestId', 'status']);
    // Ids sort as the requests came.
    expect([...requests.map((r) => r.id)].sort().reverse()).toEqual(requests.map((r) => r.id));
  });

  it('records nothing for a request without a key, and names an unknown procedure "unknown", not as called', async () => {
    const ws = await workspace();
    const secretName = unique('noSuchProcedure');
    expect((await rpcGet(ctx.app, secretName, undefined, ws.key)).status).toBe(404);
    expect((await rpcGet(ctx.app, 'leads.getAll', {}, null)).status).toBe(401);
    await recorder.flush();
    const { requests } = await logOf(ws.reader, { id: ws.keyId });
    expect(requests.map((r) => [r.procedure, r.status, r.errorCode])).toEqual([['unknown', 404, 'NOT_FOUND']]);
    expect(await storedText(ws.org.id)).not.toContain(secretName);
  });

  it('never holds bodies, inputs, headers, secrets or raw paths', async () => {
    const ws = await workspace();
    const name = unique('Secret Name');
    const email = `${unique('private').toLowerCase()}@example.com`;
    const externalId = unique('ext-person@example.org');
    const search = unique('searchterm');
    await rpcPost(ctx.app, 'leads.create', { name, phone: '+442079460002', email }, ws.key).expect(200);
    await request(ctx.app).put(`/api/v1/leads/external/${encodeURIComponent(externalId)}`).set('Authorization', `Bearer ${ws.key}`)
      .set('Content-Type', 'application/json').set('X-Custom-Header', name).send({ name, phone: '+442079460003' }).expect(201);
    await request(ctx.app).get(`/api/v1/leads?search=${search}`).set('Authorization', `Bearer ${ws.key}`).expect(200);
    await recorder.flush();

    const { requests } = await logOf(ws.reader, { id: ws.keyId });
    expect(requests.map((r) => r.procedure)).toEqual(['GET /api/v1/leads', 'PUT /api/v1/leads/external/{externalId}', 'leads.create']);
    const stored = await storedText(ws.org.id);
    for (const sent of [name, email, externalId, encodeURIComponent(externalId), search, ws.key, ws.key.slice(4, 16), 'Bearer']) {
      expect(stored).not.toContain(sent);
    }
  });
});

describe('request log writer', () => {
  it('writes what arrives after flushes of nothing (a flush never stays marked in flight)', async () => {
    const ws = await workspace();
    await recorder.flush();
    await recorder.flush();
    await rpcGet(ctx.app, 'leads.getAll', { pageSize: 1 }, ws.key).expect(200);
    await recorder.flush();
    expect((await logOf(ws.reader, { id: ws.keyId })).requests.map((r) => r.procedure)).toEqual(['leads.getAll']);
  });

  it('writes full batches while busy: rows that arrive during a flush wait for a full batch or the interval', async () => {
    const ws = await workspace();
    const batched = createKeyRequestRecorder({ db, logger: createLogger('silent'), intervalMs: 3_600_000, batchSize: 5 });
    const entry = (i: number) => ({
      orgId: ws.org.id, keyId: ws.keyId, atMs: Date.now(), method: 'GET', procedure: 'leads.getAll', status: 200,
      errorCode: null, durationMs: 1, requestId: `batch-${i}`, clientAddress: null,
    });
    const settle = async (written: number) => {
      const deadline = Date.now() + 5000;
      while (batched.stats().written < written && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      // Long enough for a write of what is left over, were one started.
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    try {
      // The fifth row fills a batch and starts its insert; two more arrive while it is in flight.
      for (let i = 0; i < 7; i++) batched.record(entry(i));
      await settle(5);
      expect(batched.stats()).toMatchObject({ written: 5, buffered: 2 });
      // Three more fill the next batch: written as one.
      for (let i = 7; i < 10; i++) batched.record(entry(i));
      await settle(10);
      expect(batched.stats()).toMatchObject({ written: 10, buffered: 0 });
      // A full batch that arrives during a flush is written as soon as that flush ends.
      for (let i = 10; i < 22; i++) batched.record(entry(i));
      await settle(20);
      expect(batched.stats()).toMatchObject({ written: 20, buffered: 2 });
      await batched.flush();
      const rows = await storedRequests(ws.org.id, ws.keyId);
      expect(rows.map((r) => r.request_id).sort()).toEqual(Array.from({ length: 22 }, (_, i) => `batch-${i}`).sort());
    } finally {
      await batched.stop();
    }
  });
});

describe('GET apiKeys.getRequests: filters and pages', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  beforeAll(async () => {
    ws = await workspace();
    for (let i = 0; i < 3; i++) await rpcGet(ctx.app, 'leads.getAll', { pageSize: 1 }, ws.key).expect(200);
    await rpcGet(ctx.app, 'apiKeys.list', undefined, ws.key).expect(403);
    await rpcGet(ctx.app, 'leads.getById', { id: 'lead_none' }, ws.key).expect(404);
    await rpcPost(ctx.app, 'leads.create', { name: unique('Lead'), phone: '+442079460004' }, ws.key).expect(200);
    await recorder.flush();
  });

  it('filters by an exact status, by failed and succeeded, and by procedure', async () => {
    const statuses = async (input: Record<string, unknown>) => (await logOf(ws.reader, { id: ws.keyId, ...input })).requests.map((r) => `${r.procedure} ${r.status}`);
    expect(await statuses({ status: 403 })).toEqual(['apiKeys.list 403']);
    expect(await statuses({ status: 'failed' })).toEqual(['leads.getById 404', 'apiKeys.list 403']);
    expect(await statuses({ status: 'succeeded' })).toEqual(['leads.create 200', ...Array(3).fill('leads.getAll 200')]);
    expect(await statuses({ procedure: 'leads.getAll' })).toEqual(Array(3).fill('leads.getAll 200'));
    expect(await statuses({ procedure: 'leads.getAll', status: 'failed' })).toEqual([]);
  });

  it('pages newest first with nextCursor until null, each request once', async () => {
    const all = (await logOf(ws.reader, { id: ws.keyId })).requests.map((r) => r.id);
    expect(all).toHaveLength(6);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await logOf(ws.reader, { id: ws.keyId, limit: 4, ...(after ? { after } : {}) });
      seen.push(...page.requests.map((r) => r.id));
      if (!page.nextCursor) break;
      after = page.nextCursor;
    }
    expect(seen).toEqual(all);
  });

  it('pages in id order across many batches that overlap in time (two instances flushing), with and without a filter', async () => {
    const other = await workspace();
    const base = Date.now() - 60_000;
    const entry = (atMs: number, i: number) => ({
      orgId: other.org.id, keyId: other.keyId, atMs, method: 'GET', procedure: 'leads.getAll', status: i % 3 === 0 ? 500 : 200,
      errorCode: i % 3 === 0 ? 'INTERNAL_SERVER_ERROR' : null, durationMs: 1, requestId: `overlap-${i}`, clientAddress: null,
    });
    // Two instances, twelve flushes each: each flush's ids interleave with the other's, 60 requests in 24 batches.
    let i = 0;
    for (let round = 0; round < 12; round++) {
      for (const offsets of [[0, 4], [2, 6, 8]]) {
        const entries = offsets.map((offset) => entry(base + round * 10 + offset, i++));
        await apiKeyRequestsQueries.insertBatch(db, entries, entries.map((e) => requestLogId(e.atMs)));
      }
    }
    const stored = await storedRequests(other.org.id, other.keyId);
    const newestFirst = (rows: Record<string, any>[]) => rows.map((r) => r.id).sort().reverse();
    const walk = async (input: Record<string, unknown>) => {
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await logOf(other.reader, { id: other.keyId, ...input, ...(after ? { after } : {}) });
        seen.push(...page.requests.map((r) => r.id));
        if (!page.nextCursor) return seen;
        after = page.nextCursor;
      }
    };
    expect(stored).toHaveLength(60);
    expect(await walk({ limit: 7 })).toEqual(newestFirst(stored));
    expect(await walk({ limit: 100 })).toEqual(newestFirst(stored));
    expect(await walk({ limit: 3, status: 'failed' })).toEqual(newestFirst(stored.filter((r) => r.status === 500)));
    const page = await logOf(other.reader, { id: other.keyId, limit: 1 });
    expect(page.requests[0]).toMatchObject({ requestId: 'overlap-59', status: 200, at: new Date(base + 11 * 10 + 8) });
  });

  it('pages a batch that spans a long time (rows held through an outage) in order with the batches inside its span', async () => {
    const other = await workspace();
    const base = Date.now() - 60_000;
    const flush = async (entries: [offset: number, status: number][]) => {
      const rows = entries.map(([offset, status]) => ({
        orgId: other.org.id, keyId: other.keyId, atMs: base + offset, method: 'GET', procedure: 'leads.getAll', status,
        errorCode: null, durationMs: 1, requestId: `span-${offset}`, clientAddress: null,
      }));
      await apiKeyRequestsQueries.insertBatch(db, rows, rows.map((r) => requestLogId(r.atMs)));
    };
    // One instance's flush after an outage: three old failures and a new one. Another's twelve flushes in between, the first three failing.
    await flush([[0, 500], [1, 500], [2, 500], [1000, 500]]);
    for (let k = 1; k <= 12; k++) await flush([[k * 100 - 50, k <= 3 ? 503 : 200]]);
    const failed = async (limit: number) => (await logOf(other.reader, { id: other.keyId, status: 'failed', limit })).requests.map((r) => r.requestId);
    // The long batch is read first (its last request is the newest); its old rows come after the other's failures, not before.
    expect(await failed(2)).toEqual(['span-1000', 'span-250']);
    expect(await failed(10)).toEqual(['span-1000', 'span-250', 'span-150', 'span-50', 'span-2', 'span-1', 'span-0']);
  });

  it("answers NOT_FOUND for another workspace's key, and 400 in the envelope for bad input", async () => {
    const other = await workspace();
    const res = await rpcGet(ctx.app, 'apiKeys.getRequests', { id: ws.keyId }, other.reader);
    expect(res.status).toBe(404);
    expect(errorOf(res).data.code).toBe('NOT_FOUND');
    for (const input of [{ id: ws.keyId, status: 99 }, { id: ws.keyId, status: 'failing' }, { id: ws.keyId, status: '404' }, { id: ws.keyId, after: 'not-a-cursor' }, { id: ws.keyId, limit: 0 }, {}]) {
      const bad = await rpcGet(ctx.app, 'apiKeys.getRequests', input, ws.reader);
      expect({ input, status: bad.status, code: errorOf(bad).data.code }).toEqual({ input, status: 400, code: 'BAD_REQUEST' });
    }
  });

  it('is app only: a key cannot read it through the deployed API', async () => {
    const deployed = createTestContext();
    try {
      const res = await rpcGet(deployed.app, 'apiKeys.getRequests', { id: ws.keyId }, ws.reader);
      expect(res.status).toBe(403);
    } finally {
      await deployed.close();
    }
  });
});

describe('request log retention', () => {
  async function insertAt(orgId: string, keyId: string, at: Date) {
    const entry = { orgId, keyId, atMs: at.getTime(), method: 'GET', procedure: 'leads.getAll', status: 200, errorCode: null, durationMs: 1, requestId: unique('rid'), clientAddress: '127.0.0.1' };
    await apiKeyRequestsQueries.insertBatch(db, [entry], [requestLogId(entry.atMs)]);
  }

  it('deletes rows older than the retention, in batches, and keeps the newer ones', async () => {
    const org = await createOrg(db);
    const keyId = newId('key');
    const day = 86_400_000;
    for (let i = 0; i < 5; i++) await insertAt(org.id, keyId, new Date(Date.now() - 8 * day - i * 1000));
    await insertAt(org.id, keyId, new Date(Date.now() - 6 * day));
    await insertAt(org.id, keyId, new Date());
    // Batches of 2: five old rows take three statements; rows of other test files may go too.
    const deleted = await purgeExpiredKeyRequests(db, 7, { batchSize: 2 });
    expect(deleted).toBeGreaterThanOrEqual(5);
    const left = (await storedRequests(org.id)).map((r) => Number(r.at_ms)).sort((a, b) => a - b);
    expect(left).toHaveLength(2);
    expect(left[0]).toBeLessThan(Date.now() - 5 * day);
  });
});

describe('request log: the database slow or down', () => {
  it('answers every request without waiting on the log, keeps the rows, and writes them once the database is back', async () => {
    const target = new URL(testDatabaseUrl());
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    // The log's own pool reaches the database through the proxy; the app's calls go direct.
    // A request that waited on the log would wait out its pool's 10 s acquire timeout: far above any answer here.
    const logDb: Db = createDb({ url: proxy.urlFor(testDatabaseUrl()), poolMax: 1, acquireTimeoutMs: 10_000, statementTimeoutMs: 500, onWarning: () => undefined });
    const slowRecorder = createKeyRequestRecorder({ db: logDb, logger: createLogger('silent'), intervalMs: 100, batchSize: 5, maxBuffered: 40 });
    const app = createTestContext({ db: createTestDb(), keyRequests: slowRecorder });
    const ws = await workspace();
    try {
      // Hung: connections open, nothing answered (a stopped machine).
      proxy.hold();
      const slowest = { ms: 0 };
      for (let i = 0; i < 10; i++) {
        const started = Date.now();
        await rpcGet(app.app, 'leads.getAll', { pageSize: 1 }, ws.key).expect(200);
        slowest.ms = Math.max(slowest.ms, Date.now() - started);
      }
      // A flush is in flight meanwhile, stuck on its connection.
      expect(slowest.ms).toBeLessThan(5000);
      // Down: refused (the stuck connection attempt is cut, and every later one refused at once).
      await proxy.refuse();
      for (let i = 0; i < 10; i++) await rpcGet(app.app, 'leads.getAll', { pageSize: 1 }, ws.key).expect(200);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(slowRecorder.stats().failedFlushes).toBeGreaterThan(0);
      // Past the buffer's bound: dropped and counted, the requests still answered.
      for (let i = 0; i < 40; i++) await rpcGet(app.app, 'leads.getAll', { pageSize: 1 }, ws.key).expect(200);
      expect(slowRecorder.stats().dropped).toBeGreaterThan(0);

      await proxy.restore();
      const deadline = Date.now() + 20_000;
      while (slowRecorder.stats().buffered > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(slowRecorder.stats().buffered).toBe(0);
      const rows = await storedRequests(ws.org.id, ws.keyId);
      // Every row kept in the buffer is written once; what was dropped is counted, not written.
      expect(rows.length + slowRecorder.stats().dropped).toBeGreaterThanOrEqual(60);
      expect(rows.length).toBeGreaterThanOrEqual(20);
      expect(new Set(rows.map((r) => r.request_id)).size).toBe(rows.length);
    } finally {
      await proxy.restore();
      await app.close();
      await logDb.destroy();
      await proxy.close();
    }
  }, 60_000);
});
