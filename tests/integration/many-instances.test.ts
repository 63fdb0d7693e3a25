import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Db } from '../../src/db/knex';
import { TABLES } from '../../src/db/tables';
import { createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { killIfRunning, sleep, startServer, type ServerProcess } from '../helpers/server-process';

const ROOT = join(__dirname, '..', '..');

/** The operators' CLI as ops run it: its own process, on the same database. */
function runCli(...args: string[]): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: testDatabaseUrl() },
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += String(chunk)));
  child.stderr.on('data', (chunk) => (out += String(chunk)));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out })));
}

async function statusWith(server: ServerProcess, key: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/leads?pageSize=1`, { headers: { Authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

/** Polls every 100 ms until the server refuses the key; answers when it first did (ms since epoch). */
async function refusedAt(server: ServerProcess, key: string, deadline: number): Promise<number> {
  while (Date.now() < deadline) {
    if ((await statusWith(server, key)) === 401) return Date.now();
    await sleep(100);
  }
  throw new Error(`port ${server.port} still accepted the revoked key`);
}

describe('two server processes on one database', () => {
  let db: Db;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    db = createTestDb();
    const env = { DATABASE_URL: testDatabaseUrl(), KEY_CACHE_TTL_MS: '1000' };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
  }, 90_000);
  afterAll(async () => {
    servers.forEach(killIfRunning);
    await db.destroy();
  });

  it('both refuse a key revoked through the CLI within 1 second, though each had it cached', async () => {
    const { key, keyId, org } = await createWorkspace(db);
    const [a, b] = servers as [ServerProcess, ServerProcess];
    expect([await statusWith(a, key), await statusWith(b, key)]).toEqual([200, 200]); // now cached in both

    // The revocation's moment is bracketed from the database itself: `revokedSince` is when the
    // last read that still saw the key unrevoked started, so the elapsed times below can only be
    // overstated, never understated (the CLI's own start-up is not counted).
    let revokedSince = Date.now();
    let cliExited = false;
    const watcher = (async () => {
      for (;;) {
        const readStarted = Date.now();
        const row = await db(TABLES.apiKeys).select('revoked_at').where({ org_id: org.id, id: keyId }).first();
        if (row?.revoked_at || cliExited) return;
        revokedSince = readStarted;
        await sleep(10);
      }
    })();
    const revoke = await runCli('key', 'revoke', keyId);
    cliExited = true;
    await watcher;
    expect(revoke).toMatchObject({ code: 0 });

    const deadline = Date.now() + 3000;
    const [aRefused, bRefused] = await Promise.all([refusedAt(a, key, deadline), refusedAt(b, key, deadline)]);
    expect(aRefused - revokedSince).toBeLessThanOrEqual(1200);
    expect(bRefused - revokedSince).toBeLessThanOrEqual(1200);
    const res = await fetch(`http://127.0.0.1:${b.port}/api/v1/leads`, { headers: { Authorization: `Bearer ${key}` } });
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('API key has been revoked');
  }, 60_000);
});
