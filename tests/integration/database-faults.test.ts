import { DEFAULT_NODE_SETTINGS } from '../../src/db/nodes';
import request from 'supertest';
import type { Express } from 'express';
import { createDb, type Db } from '../../src/db/knex';
import { connectDatabase } from '../../src/db/connect';
import { toAppError } from '../../src/errors/to-app-error';
import { createNotificationListener } from '../../src/live/notification-listener';
import { createTestContext, createTestDb, testDatabaseUrl, type TestContext } from '../helpers/test-app';
import { createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost } from '../helpers/rpc';
import { expectRpcError } from '../helpers/rpc-edge-fixtures';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { sleep, until } from '../helpers/poll';

/**
 * PostgreSQL taken away from one app (not from the server every other test uses): its pool reaches
 * the database through a TCP proxy this file cuts, silences and restores. While the database is
 * gone, calls answer 503 SERVICE_UNAVAILABLE in the envelope within the acquire timeout (the
 * bound below is that timeout plus generous slack: it tells "fails fast" from "hangs", which
 * without these settings lasts up to a minute or for ever); once it is back, the same app answers
 * 200 again without a restart.
 */

const ACQUIRE_TIMEOUT_MS = 1000;
/** Statement timeout 1 s: the driver gives up on a silent socket 2 s later (knex.ts). */
const STATEMENT_TIMEOUT_MS = 1000;
const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 1000; // knex.ts: QUERY_TIMEOUT_SLACK_MS
const SLACK_MS = 3000;


describe('database faults', () => {
  const direct = createTestDb(2);
  let proxy: TcpProxy;
  let db: Db;
  let ctx: TestContext;
  let key: string;
  let orgId: string;
  const applicationName = unique('wsapi-faults');

  beforeAll(async () => {
    const target = new URL(testDatabaseUrl());
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    db = createDb({
      url: proxy.urlFor(testDatabaseUrl()),
      poolMax: 3,
      acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      applicationName,
      // knex reports each dead connection it drops; the assertions are on the answers.
      onWarning: () => undefined,
    });
    // A key cache of 0 ms: every call reads its key, so every call needs the database.
    ctx = createTestContext({ db, keyCacheTtlMs: 0 });
    ({ key, org: { id: orgId } } = await createWorkspace(direct));
  });

  afterEach(() => proxy.restore());

  afterAll(async () => {
    await ctx.close();
    await direct.destroy();
    await proxy.close();
  });

  /** Several kinds of call at once: a read, a write and the REST list. */
  function callsOfEachKind(app: Express) {
    return [
      { path: 'leads.getAll', send: () => rpcGet(app, 'leads.getAll', { pageSize: 1 }, key) },
      { path: 'leads.create', send: () => rpcPost(app, 'leads.create', { name: unique('Lead'), phone: '+442079460001' }, key) },
      { path: undefined, send: () => request(app).get('/api/v1/leads?pageSize=1').set('Authorization', `Bearer ${key}`) },
    ];
  }

  async function expectServiceUnavailable(call: ReturnType<typeof callsOfEachKind>[number], withinMs: number) {
    const started = Date.now();
    const res = await call.send();
    const elapsed = Date.now() - started;
    if (call.path) expectRpcError(res, 'SERVICE_UNAVAILABLE', call.path);
    else expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(res.headers['retry-after']).toBe('1');
    expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|terminated|timeout/i);
    expect(elapsed).toBeLessThan(withinMs);
  }

  /** Polls (for at most 10 s) until a read answers 200; answers the last status seen. */
  async function statusOnceRecovered(app: Express): Promise<number> {
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await rpcGet(app, 'leads.getAll', { pageSize: 1 }, key)).status;
      if (status === 200) break;
      await sleep(100);
    }
    return status;
  }

  async function warmPool(): Promise<void> {
    // A handshake the previous case's silence left hanging may still be pending, and would be handed
    // to the next call when it fails: each case starts from a settled pool.
    const pool = (db.client as { pool: { numPendingCreates(): number } }).pool;
    expect(await until(async () => pool.numPendingCreates() === 0, 10_000)).toBe(true);
    const answers = await Promise.all([1, 2, 3].map(() => rpcGet(ctx.app, 'leads.getAll', { pageSize: 1 }, key)));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
  }

  describe('when PostgreSQL refuses connections and drops the open ones (stopped)', () => {
    it('answers 503 SERVICE_UNAVAILABLE with Retry-After: 1 at once on every kind of call, and /readyz 503', async () => {
      await warmPool();
      await proxy.refuse();
      for (const call of callsOfEachKind(ctx.app)) await expectServiceUnavailable(call, ACQUIRE_TIMEOUT_MS + SLACK_MS);
      const ready = await request(ctx.app).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'unavailable', reason: 'database unreachable' });
    });

    it('answers 200 again once PostgreSQL is back, with the same pool (dead connections were dropped)', async () => {
      await warmPool();
      await proxy.refuse();
      expect((await rpcGet(ctx.app, 'leads.getAll', { pageSize: 1 }, key)).status).toBe(503);
      await proxy.restore();
      expect(await statusOnceRecovered(ctx.app)).toBe(200);
      const created = await rpcPost(ctx.app, 'leads.create', { name: unique('After'), phone: '+442079460002' }, key);
      expect(created.status).toBe(200);
      expect(await direct('leads').where({ org_id: orgId, id: created.body.result.data.json.id }).count({ n: '*' })).toEqual([{ n: '1' }]);
      await request(ctx.app).get('/readyz').expect(200, { status: 'ready' });
    });
  });

  describe('when the network path goes silent (no answer, no error)', () => {
    it('answers 503 within the query timeout for a call on an open connection, and within the acquire timeout for a new one', async () => {
      await warmPool();
      proxy.silence();
      // Each call takes an open connection, waits for an answer that never comes and gives up.
      const onOpen = await Promise.all(callsOfEachKind(ctx.app).map((call) => expectServiceUnavailable(call, QUERY_TIMEOUT_MS + SLACK_MS)));
      expect(onOpen).toHaveLength(3);
      // Those connections are no longer trusted: the next call opens a new one, whose handshake hangs.
      await expectServiceUnavailable(callsOfEachKind(ctx.app)[0]!, ACQUIRE_TIMEOUT_MS + SLACK_MS);
    });

    it('answers 200 on the first call once the path is back: connections left waiting for a lost answer are replaced, not reused', async () => {
      await warmPool();
      proxy.silence();
      await Promise.all([1, 2, 3].map(() => rpcGet(ctx.app, 'leads.getAll', { pageSize: 1 }, key).expect(503)));
      await proxy.restore();
      // Reusing one of them would queue the query behind the lost answer and time out again.
      expect((await rpcGet(ctx.app, 'leads.getAll', { pageSize: 1 }, key)).status).toBe(200);
    });
  });

  describe('when the path holds its traffic and delivers it late (a hung node that resumes)', () => {
    it('never hands out a connection whose abandoned transaction is still open: the late statement is rolled back, not committed by the next caller', async () => {
      // One connection, so the next transaction gets that one unless the pool refuses it.
      const single = createDb({ url: proxy.urlFor(testDatabaseUrl()), poolMax: 1, acquireTimeoutMs: ACQUIRE_TIMEOUT_MS, statementTimeoutMs: STATEMENT_TIMEOUT_MS, onWarning: () => undefined });
      const table = unique('abandoned').replace(/[^a-z0-9_]/gi, '_').toLowerCase();
      await direct.raw(`create table ${table} (n int)`);
      try {
        const abandoned = await single.transaction(async (trx) => {
          await trx.raw('select 1');
          proxy.hold();
          // Sent, held: the driver gives up on its answer (and on the ROLLBACK queued behind it).
          await trx.raw(`insert into ${table} values (1)`);
        }).then(() => undefined, (err: unknown) => err);
        expect(toAppError(abandoned).code).toBe('SERVICE_UNAVAILABLE');
        await proxy.restore();
        // The insert arrives now and runs; its answer leaves the session idle in a transaction.
        await sleep(300);
        await single.transaction((trx) => trx.raw(`insert into ${table} values (2)`));
        expect((await direct.raw(`select n from ${table} order by n`)).rows).toEqual([{ n: 2 }]);
      } finally {
        await single.destroy();
        await direct.raw(`drop table ${table}`);
      }
    });
  });

  describe('when PostgreSQL ends the sessions (pg_terminate_backend, as in a restart: 57P01)', () => {
    async function terminateSessions(): Promise<number> {
      const { rows } = await direct.raw('select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = ?', [applicationName]);
      return rows.length;
    }

    it('answers 200 on the very next call: idle connections whose session ended are dropped at acquire', async () => {
      await warmPool();
      expect(await terminateSessions()).toBeGreaterThan(0);
      await sleep(100); // the termination notice reaching the idle clients
      const answers = await Promise.all([1, 2, 3].map(() => rpcGet(ctx.app, 'leads.getAll', { pageSize: 1 }, key)));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    });

    it('maps the error of a statement whose session is ended under it to 503', async () => {
      // A pool of its own without the statement timeout, so only the termination can end the sleep.
      const sleeperName = unique('wsapi-faults-sleeper');
      const sleeper = createDb({ url: testDatabaseUrl(), poolMax: 1, applicationName: sleeperName, onWarning: () => undefined });
      try {
        const running = sleeper.raw('select pg_sleep(30)').then(() => undefined, (err: unknown) => err);
        const sleeping = "select 1 from pg_stat_activity where application_name = ? and query like 'select pg_sleep%'";
        expect(await until(async () => (await direct.raw(sleeping, [sleeperName])).rows.length === 1, 10_000)).toBe(true);
        await direct.raw('select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?', [sleeperName]);
        const err = await running;
        expect((err as { code?: string }).code).toBe('57P01');
        const error = toAppError(err);
        expect({ code: error.code, message: error.message }).toEqual({ code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable; retry shortly' });
      } finally {
        await sleeper.destroy();
      }
    });
  });

  describe('statement timeout (DB_STATEMENT_TIMEOUT_MS)', () => {
    it('has PostgreSQL cancel a statement running longer, answered as 503, and leaves the connection usable', async () => {
      const err = await db.raw('select pg_sleep(5)').then(() => undefined, (e: unknown) => e);
      expect((err as { code?: string }).code).toBe('57014');
      expect(toAppError(err).code).toBe('SERVICE_UNAVAILABLE');
      expect((await db.raw('select 1 as one')).rows).toEqual([{ one: 1 }]);
    });

    it('leaves pools made without it (migrations, the CLI, bulk loads) unbounded', async () => {
      const unbounded = createDb({ url: testDatabaseUrl(), poolMax: 1 });
      try {
        expect((await unbounded.raw('show statement_timeout')).rows).toEqual([{ statement_timeout: '0' }]);
        expect((await db.raw('show statement_timeout')).rows).toEqual([{ statement_timeout: '1s' }]);
      } finally {
        await unbounded.destroy();
      }
    });
  });

  describe("the hot reads' pool, which times its own reads (as the service connects)", () => {
    it('answers a REST list page 503 within the query timeout on a silent path, then 200 on connections that replace the waiting ones', async () => {
      // The pools as index.ts makes them: the hot reads (the list's first page) run on a second
      // pool, without pg's query_timeout; its callers give up after the same time.
      const database = await connectDatabase({
        url: proxy.urlFor(testDatabaseUrl()), embeddedDir: '', poolMax: 3, migrate: false, namedStatements: true,
        acquireTimeoutMs: ACQUIRE_TIMEOUT_MS, statementTimeoutMs: STATEMENT_TIMEOUT_MS, applicationName, onWarning: () => undefined,
      });
      expect(database.hotReads.pool).not.toBe(database.db);
      // The key stays cached, so only the page's statement needs the database.
      const pair = createTestContext({ db: database.db, hotReads: database.hotReads, keyCacheTtlMs: 60_000 });
      const list = () => request(pair.app).get('/api/v1/leads?pageSize=1').set('Authorization', `Bearer ${key}`);
      try {
        // Three pages at once open three connections in each pool.
        expect((await Promise.all([1, 2, 3].map(list))).map((res) => res.status)).toEqual([200, 200, 200]);
        proxy.silence();
        const started = Date.now();
        const answers = await Promise.all([1, 2, 3].map(list));
        expect(answers.map((res) => [res.status, res.body.error?.code])).toEqual([1, 2, 3].map(() => [503, 'SERVICE_UNAVAILABLE']));
        // Not the acquire timeout: the connections were open, and waited for the answer.
        expect(Date.now() - started).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS - 100);
        expect(Date.now() - started).toBeLessThan(QUERY_TIMEOUT_MS + SLACK_MS);
        // Three timeouts in a row opened the database's breaker: answered at once while a probe
        // (src/db/nodes) waits for the database to answer again.
        const fast = Date.now();
        const refused = await list();
        expect([refused.status, refused.headers['retry-after']]).toEqual([503, '1']);
        expect(Date.now() - fast).toBeLessThan(500);
        // Not ready (the path to the database is silent), the node named as degraded, and counted:
        // 'database' on one PostgreSQL, the workspace's worker (host:port) on Citus.
        const node = process.env.WSAPI_TEST_CITUS === '1' ? expect.stringMatching(/^127\.0\.0\.1:\d+$/) : 'database';
        const ready = await request(pair.app).get('/readyz');
        expect([ready.status, ready.body]).toEqual([503, { status: 'unavailable', reason: 'database unreachable', degraded: [{ node, state: 'open' }] }]);
        const metrics = (await request(pair.app).get('/metrics')).text;
        expect(metrics).toMatch(/^db_node_breaker_state\{node="[^"]+"\} 2$/m);
        expect(metrics).toMatch(/^db_node_timeouts_total\{node="[^"]+"\} 3$/m);
        expect(metrics).toMatch(/^db_node_rejected_total\{node="[^"]+"\} 1$/m);
        // Once the path is back, the probe is answered and the breaker closes by itself: the
        // next page is 200 without any request having had to try the database first.
        await proxy.restore();
        const back = Date.now();
        while ((await request(pair.app).get('/readyz')).body.degraded !== undefined) {
          expect(Date.now() - back).toBeLessThan(ACQUIRE_TIMEOUT_MS + DEFAULT_NODE_SETTINGS.openMs + SLACK_MS);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect((await list()).status).toBe(200);
      } finally {
        await database.close();
      }
    });
  });

  describe("the process's LISTEN connection (key-cache invalidation, wake-ups)", () => {
    it('goes down with PostgreSQL and is live again by itself once it is back', async () => {
      const listener = createNotificationListener({
        url: proxy.urlFor(testDatabaseUrl()),
        db,
        heartbeatMs: 200,
        retryDelayMs: { min: 50, max: 500 },
      });
      listener.start();
      try {
        expect(await until(() => listener.isLive(), 10_000)).toBe(true);
        await proxy.refuse();
        expect(await until(() => !listener.isLive(), 10_000)).toBe(true);
        await sleep(1000); // several refused reconnection attempts
        expect(listener.isLive()).toBe(false);
        await proxy.restore();
        expect(await until(() => listener.isLive(), 10_000)).toBe(true);
      } finally {
        await listener.stop();
      }
    });
  });
});
