import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDatabaseUrl } from '../helpers/test-app';

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
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
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
      expect(await stop(child)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('starts on DATABASE_URL without loading demo data, and refuses a bad PORT with one line naming it', async () => {
    const { child, port, lines } = await start({ DATABASE_URL: testDatabaseUrl() });
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
