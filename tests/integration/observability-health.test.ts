import request from 'supertest';
import { createDb } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';
import { HotReads } from '../../src/db/connect';
import { createObservedApp } from '../helpers/observability-app';
import { testDatabaseUrl } from '../helpers/test-app';
import { useOwnDatabase } from '../helpers/own-database';

const ctx = createObservedApp();
afterAll(() => ctx.close());

/** A pool pointing at a closed port: every connection attempt is refused at once. */
function unreachableApp() {
  return createObservedApp({ db: createDb({ url: 'postgres://postgres@127.0.0.1:1/x', poolMax: 2, acquireTimeoutMs: 500, onWarning: () => undefined }) });
}

describe('GET /healthz', () => {
  it('answers 200 {"status":"ok"} without a key', async () => {
    const res = await request(ctx.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('answers 200 even when the database is unreachable (the process is alive)', async () => {
    const broken = unreachableApp();
    try {
      await request(broken.app).get('/healthz').expect(200, { status: 'ok' });
    } finally {
      await broken.close();
    }
  });
});

describe('GET /readyz', () => {
  it('answers 200 {"status":"ready"} on the migrated test database, without a key', async () => {
    const res = await request(ctx.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 503 "database unreachable" when the pool cannot connect, with no error details', async () => {
    const broken = unreachableApp();
    try {
      const res = await request(broken.app).get('/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'unavailable', reason: 'database unreachable' });
      expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/);
      // The cause is for operators: it goes to the probe's request line, at warn (a restart heals by itself).
      expect(broken.output()).toMatch(/"level":40,[^\n]*"route":"GET \/readyz"[^\n]*"status":503[^\n]*"cause":\{"code":"ECONNREFUSED"/);
    } finally {
      await broken.close();
    }
  });

  it("answers 503 when the hot reads' pool cannot connect, though the main pool can", async () => {
    const main = createDb({ url: testDatabaseUrl(), poolMax: 1, onWarning: () => undefined });
    const hotReads = HotReads.onPoolOfTheirOwn(main, { url: 'postgres://postgres@127.0.0.1:1/x', poolMax: 1, acquireTimeoutMs: 500, onWarning: () => undefined });
    const app = createObservedApp({ db: main, hotReads });
    try {
      await request(app.app).get('/readyz').expect(503, { status: 'unavailable', reason: 'database unreachable' });
    } finally {
      await app.close();
      await hotReads.close();
    }
  });

  it('logs probes at debug level, so they are absent at info and present at debug', async () => {
    const reqId = `probe-${Date.now()}`;
    await request(ctx.app).get('/readyz').set('X-Request-Id', reqId).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ctx.output()).not.toContain(reqId);
    const verbose = createObservedApp({ level: 'debug' });
    try {
      await request(verbose.app).get('/healthz').set('X-Request-Id', reqId).expect(200);
      expect(await verbose.lineFor(reqId)).toMatchObject({ level: 20, route: 'GET /healthz', status: 200 });
    } finally {
      await verbose.close();
    }
  });
});

describe('GET /readyz on a database whose migrations are not applied', () => {
  const freshUrl = useOwnDatabase('wsapi_ready');

  it('answers 503 "migrations pending" on an empty database, creates nothing there, and 200 once migrated', async () => {
    const fresh = createObservedApp({ db: createDb({ url: freshUrl, poolMax: 2, onWarning: () => undefined }) });
    try {
      await request(fresh.app).get('/readyz').expect(503, { status: 'unavailable', reason: 'migrations pending' });
      const { rows } = await fresh.db.raw("select to_regclass('knex_migrations') as t");
      expect(rows[0].t).toBeNull();
      await migrateLatest(fresh.db);
      await request(fresh.app).get('/readyz').expect(200, { status: 'ready' });
    } finally {
      await fresh.close();
    }
  });

  it('answers 503 "migrations pending" when the latest migration is missing from the database', async () => {
    const db = createDb({ url: freshUrl, poolMax: 2, onWarning: () => undefined });
    await migrateLatest(db);
    await db.raw('delete from knex_migrations where id = (select max(id) from knex_migrations)');
    const app = createObservedApp({ db });
    try {
      await request(app.app).get('/readyz').expect(503, { status: 'unavailable', reason: 'migrations pending' });
    } finally {
      await app.close();
    }
  });
});
