import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabaseUrl } from '../helpers/test-app';
import { NAMED_STATEMENTS } from '../helpers/server-process';
import { TEST_JWT_SECRETS } from '../helpers/test-secrets';

const ROOT = join(__dirname, '..', '..');

interface Started {
  child: ChildProcess;
  port: number;
  lines: string[];
}

/** Starts `npm start`'s entry point as its own process and waits for it to listen. */
function start(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', DB_NAMED_STATEMENTS: NAMED_STATEMENTS, ...env },
  });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${lines.join('\n')}`)), 60_000);
    child.stderr.on('data', (chunk) => lines.push(String(chunk)));
    child.stdout.on('data', (chunk: Buffer) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        lines.push(line);
        const match = /listening on http:\/\/localhost:(\d+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve({ child, port: Number(match[1]), lines });
        }
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${lines.join('\n')}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/**
 * Many overlapping requests answer exactly what each answers alone. PGlite runs one session for
 * every socket connection: overlapping statements of two pool connections would corrupt each other.
 */
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
  it('starts on the embedded database with demo data, prints a working demo key, and stops cleanly on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsapi-start-'));
    try {
      const { child, port, lines } = await start({ EMBEDDED_DB_DIR: dir });
      const key = /demo API key[^:]*: (wsk_[0-9A-Za-z]{40})/.exec(lines.join('\n'))?.[1];
      expect(key).toBeDefined();
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/leads?pageSize=1`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { pagination: { total: number } }).pagination.total).toBe(300);
      await expectConcurrentAnswersIntact(port, key!);
      expect(await stop(child)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('starts on DATABASE_URL without loading demo data, and refuses a bad PORT with one line naming it', async () => {
    const { child, port, lines } = await start({ DATABASE_URL: testDatabaseUrl(), ...TEST_JWT_SECRETS });
    expect(lines.join('\n')).not.toMatch(/demo API key/);
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/leads`);
    expect(res.status).toBe(401);
    expect(await stop(child)).toBe(0);

    const bad = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', PORT: 'abc' } });
    let stderr = '';
    bad.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const code = await new Promise((resolve) => bad.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('Invalid environment variable PORT: Invalid input: expected number, received NaN');
  }, 90_000);
});
