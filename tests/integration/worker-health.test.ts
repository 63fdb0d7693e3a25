import { createServer } from 'node:net';
import { once } from 'node:events';
import { createTestContext, testDatabaseUrl } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { CSV, uploadImport, validCsv } from '../helpers/imports';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { sleep, until } from '../helpers/poll';
import { startWorkerProcess } from '../helpers/webhook-fixtures';

// The worker process's GET /healthz (src/webhooks/worker-health.ts), over real HTTP, with the
// worker's database behind a TCP proxy the test controls: refused (PostgreSQL down) and held (a
// hung server) are real network faults, not mocks. A stalled loop is a real wait too: its claim
// blocks on a lock the test holds in the database.

type Worker = ReturnType<typeof startWorkerProcess>;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** A worker claiming nothing of the other tests' (no such workspace), polling fast, its database through `proxy`. */
async function startWorker(proxy: TcpProxy, env: Record<string, string>): Promise<{ worker: Worker; port: number; stallAfterMs: number }> {
  const port = await freePort();
  const worker = startWorkerProcess({
    DATABASE_URL: proxy.urlFor(testDatabaseUrl()),
    HOST: '127.0.0.1',
    WORKER_HEALTH_PORT: String(port),
    WEBHOOK_POLL_MS: '20',
    IMPORT_POLL_MS: '20',
    DB_ACQUIRE_TIMEOUT_MS: '500',
    WEBHOOK_WORKER_ORG_IDS: 'org_workerhealthnone',
    IMPORT_WORKER_ORG_IDS: 'org_workerhealthnone',
    ...env,
  });
  expect(await until(() => /worker health on http:\/\/127\.0\.0\.1:\d+\/healthz/.test(worker.output()), 30_000)).toBe(true);
  const stallAfterMs = Number(/"stallAfterMs":(\d+)/.exec(worker.output())?.[1]);
  return { worker, port, stallAfterMs };
}

const health = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  return { status: res.status, cacheControl: res.headers.get('cache-control'), body: (await res.json()) as { status: string; reason?: string; loops?: string[] } };
};

function stop(worker: Worker | undefined): void {
  if (worker && worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
}

const ctx = createTestContext();
afterAll(() => ctx.close());

describe('the worker process GET /healthz', () => {
  let proxy: TcpProxy;
  let worker: Worker | undefined;
  beforeEach(async () => {
    const { hostname, port } = new URL(testDatabaseUrl());
    proxy = await startTcpProxy({ host: hostname, port: Number(port || 5432) });
  });
  afterEach(async () => {
    stop(worker);
    await worker?.exited;
    worker = undefined;
    await proxy.close();
  });

  it('answers 200 {"status":"ok"} (no-store) while its loops turn, 404 JSON elsewhere, and names no version', async () => {
    const started = await startWorker(proxy, {});
    worker = started.worker;
    // The defaults' threshold: 3 x (1 s pause + 500 ms acquire + 2 s statement + 1 s driver margin).
    expect(started.stallAfterMs).toBe(13_500);

    expect(await health(started.port)).toEqual({ status: 200, cacheControl: 'no-store', body: { status: 'ok' } });
    const other = await fetch(`http://127.0.0.1:${started.port}/metrics`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'Only GET /healthz is served here' } });
    expect(other.headers.get('x-powered-by')).toBeNull();
  }, 60_000);

  it('stays 200 while the database refuses connections and then hangs, past the threshold: the claims fail, the loops still turn', async () => {
    const started = await startWorker(proxy, { DB_STATEMENT_TIMEOUT_MS: '500' });
    worker = started.worker;
    expect(started.stallAfterMs).toBe(9000);

    await proxy.refuse();
    await sleep(started.stallAfterMs + 1000);
    expect((await health(started.port)).body).toEqual({ status: 'ok' });
    expect(worker.output()).toMatch(/could not claim/);

    await proxy.restore();
    proxy.hold();
    await sleep(started.stallAfterMs + 1000);
    expect(await health(started.port)).toMatchObject({ status: 200, body: { status: 'ok' } });
  }, 60_000);

  it('answers 503 stalled naming the imports loop while its claim waits on a lock with no statement timeout, the deliveries loop still turning, and 200 once the lock goes', async () => {
    const ws = await createWorkspace(ctx.db);
    expect((await uploadImport(ctx.app, ws.key, validCsv(3), { type: CSV })).status).toBe(202);
    // The lock every claim of the workspace's imports takes first (src/db/imports/jobs.ts), held
    // by the test: the worker's claim waits for it, as a loop stuck on anything would.
    const lock = await ctx.db.transaction();
    await lock.raw(`select pg_advisory_xact_lock(hashtextextended('imports:' || ?, 0))`, [ws.org.id]);
    let port = 0;
    try {
      const started = await startWorker(proxy, { DB_STATEMENT_TIMEOUT_MS: '0', IMPORT_WORKER_ORG_IDS: ws.org.id });
      worker = started.worker;
      port = started.port;
      expect(started.stallAfterMs).toBe(7500);
      const startedAt = Date.now();
      expect((await health(started.port)).status).toBe(200);

      expect(await until(async () => (await health(started.port)).status === 503, started.stallAfterMs + 10_000, 250)).toBe(true);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(started.stallAfterMs - 1000);
      expect(await health(started.port)).toEqual({
        status: 503, cacheControl: 'no-store', body: { status: 'stalled', reason: 'loop not turning', loops: ['imports'] },
      });
    } finally {
      await lock.commit();
    }
    expect(await until(async () => (await health(port)).status === 200, 10_000, 100)).toBe(true);
    // Each line is written as the probe that saw the change is answered: it may reach the pipe just after the answer.
    expect(await until(() => /worker health: every loop turns again/.test(worker!.output()), 5_000)).toBe(true);
    expect(worker!.output()).toMatch(/worker health: a loop has stopped turning/);
  }, 60_000);

  it('serves nothing with WORKER_HEALTH_PORT=0', async () => {
    const port = await freePort();
    worker = startWorkerProcess({ DATABASE_URL: proxy.urlFor(testDatabaseUrl()), HOST: '127.0.0.1', WORKER_HEALTH_PORT: '0', WEBHOOK_WORKER_ORG_IDS: 'org_workerhealthnone', IMPORT_WORKER_ORG_IDS: 'org_workerhealthnone' });
    expect(await until(() => /webhook worker started/.test(worker!.output()), 30_000)).toBe(true);
    expect(worker.output()).not.toMatch(/worker health on/);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 60_000);

  it('exits 1 with one line naming WORKER_HEALTH_PORT when the port is taken, claiming nothing', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as { port: number };
    try {
      worker = startWorkerProcess({ DATABASE_URL: proxy.urlFor(testDatabaseUrl()), HOST: '127.0.0.1', WORKER_HEALTH_PORT: String(port), WEBHOOK_WORKER_ORG_IDS: 'org_workerhealthnone' });
      expect(await worker.exited).toBe(1);
      expect(worker.output()).toContain(`webhook worker failed to start: WORKER_HEALTH_PORT ${port} on 127.0.0.1: already in use`);
      expect(worker.output()).not.toMatch(/webhook worker started|\n\s+at /);
    } finally {
      taken.close();
    }
  }, 60_000);

  it.each(['abc', '70000'])('exits 1 naming WORKER_HEALTH_PORT for %s, with no stack trace', async (value) => {
    worker = startWorkerProcess({ WORKER_HEALTH_PORT: value });
    expect(await worker.exited).toBe(1);
    expect(worker.output().trim()).toMatch(/^Invalid environment variable WORKER_HEALTH_PORT: [^\n]+$/);
  }, 30_000);
});
