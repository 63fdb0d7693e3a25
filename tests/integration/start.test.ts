import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testDatabaseUrl } from '../helpers/test-app';
import { startServer, stopServer, type ServerProcess } from '../helpers/server-process';
import { TEST_JWT_SECRETS } from '../helpers/test-secrets';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

/** Many overlapping requests, reads and writes and failing statements, answer exactly what each answers alone. */
async function expectConcurrentAnswersIntact(port: number, key: string): Promise<void> {
  const paths = Array.from({ length: 12 }, (_, i) => [
    `/api/v1/leads?pageSize=${5 + i}&page=${1 + i}`,
    `/api/v1/leads?search=${['a', 'e', 'o', 'an', 'ar', 'el'][i % 6]}&pageSize=3`,
    `/api/v1/rpc/leads.getAll?input=${encodeURIComponent(JSON.stringify({ json: { page: 2 + i, pageSize: 4 } }))}`,
  ]).flat();
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    return { status: res.status, body: await res.text() };
  };
  const alone: { status: number; body: string }[] = [];
  for (const path of paths) alone.push(await get(path));
  const create = async (i: number) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/rpc/contacts.create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ json: { name: `Concurrent ${i}`, phones: ['+442079460123'] } }),
    });
    return res.status;
  };
  for (let round = 0; round < 3; round += 1) {
    // Writes (transactions) overlap the reads; contacts do not change the leads read above.
    // A statement PostgreSQL refuses (an unknown time zone in a query) leaves its session skipping to the next Sync.
    const failing = paths.map(() => get(`/api/v1/rpc/dashboard.getLeadStats?input=${encodeURIComponent(JSON.stringify({ json: { timeZone: 'US/Pacific-New' } }))}`));
    const [together, created] = await Promise.all([Promise.all(paths.map(get)), Promise.all(paths.map((_, i) => create(i))), ...failing]);
    expect(together).toEqual(alone);
    expect(created.every((status) => status === 200)).toBe(true);
  }
  expect(alone.every((answer) => answer.status === 200)).toBe(true);
}

describe('npm start', () => {
  let server: ServerProcess | undefined;
  afterEach(() => stopServer(server));

  it('starts on the embedded database with demo data, prints ids, addresses and curls that work as pasted, and stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsapi-start-'));
    try {
      server = await startServer({ EMBEDDED_DB_DIR: dir, NODE_ENV: undefined });
      const banner = await server.waitForLine(/Try:[\s\S]*leads\.getById/);
      const key = /demo API key\s+(wsk_[0-9A-Za-z]{40})/.exec(banner)?.[1];
      expect(key).toBeDefined();
      const base = `http://localhost:${server.port}`;
      expect(banner).toContain(`${base}/developer`);
      expect(banner).toContain(`${base}/docs`);
      const orgId = /workspace\s+(org_\w+)/.exec(banner)?.[1];
      const memberId = /DEVELOPER member\s+(mem_\w+)/.exec(banner)?.[1];
      expect(banner).toContain(`npm run cli -- member token --member ${memberId}`);

      // Every printed curl, pasted into a shell as it is, answers 200 for the demo workspace.
      const curls = banner.split('\n').map((line) => line.trim()).filter((line) => line.startsWith('curl '));
      expect(curls).toHaveLength(2);
      for (const curl of curls) {
        const { stdout } = await run('bash', ['-c', `${curl} --silent --show-error --fail`]);
        expect(stdout.length).toBeGreaterThan(0);
      }
      expect(orgId).toMatch(/^org_/);

      const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/leads?pageSize=1`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { pagination: { total: number } }).pagination.total).toBe(300);
      await expectConcurrentAnswersIntact(server.port, key!);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      await stopServer(server, dir);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('starts on DATABASE_URL without loading demo data, and refuses a bad PORT with one line naming it', async () => {
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), ...TEST_JWT_SECRETS });
    expect(server.lines.join('\n')).not.toMatch(/demo API key/);
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/leads`);
    expect(res.status).toBe(401);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    const bad = await run(process.execPath, ['--import', 'tsx', 'src/index.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', PORT: 'abc' } }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('Invalid environment variable PORT: Invalid input: expected number, received NaN');
  }, 90_000);
});
