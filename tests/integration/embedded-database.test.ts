import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startServer, stopEmbeddedPostgresIn, stopServer, type ServerProcess } from '../helpers/server-process';

/**
 * The embedded default never loses a write: the CLI and `npm start` on one data folder at the
 * same time, a second `npm start`, and a service killed in the middle of writes. Each test owns
 * a fresh folder, and every process it starts is stopped in `finally`.
 */
const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

function embeddedEnv(dir: string): Record<string, string> {
  return { EMBEDDED_DB_DIR: dir, RATE_LIMIT_PER_MINUTE: '0' };
}

/** The CLI as a newcomer runs it (`npm run cli -- ...`): its own process on the same folder. */
async function cliProcess(dir: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...argv], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...embeddedEnv(dir) },
      timeout: 90_000,
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, out: failed.stdout ?? '', err: failed.stderr ?? '' };
  }
}

async function stopGracefully(server: ServerProcess): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

const demoKeyOf = (dir: string) => readFileSync(join(dir, 'demo-key.txt'), 'utf8').trim();

function rpc(port: number, key: string, name: string, input: unknown) {
  return fetch(`http://127.0.0.1:${port}/api/v1/rpc/${name}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ json: input }),
  });
}

function getById(port: number, key: string, name: string, id: string) {
  const input = encodeURIComponent(JSON.stringify({ json: { id } }));
  return fetch(`http://127.0.0.1:${port}/api/v1/rpc/${name}?input=${input}`, { headers: { Authorization: `Bearer ${key}` } });
}

describe('the embedded database shared by npm start and the CLI', () => {
  let dir: string;
  const started: ServerProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wsapi-embedded-'));
  });
  afterEach(async () => {
    for (const server of started.splice(0)) await stopServer(server);
    await stopEmbeddedPostgresIn(dir);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a CLI started with npm start on a new folder makes a workspace and a key that the running service accepts, before and after a restart', async () => {
    // Both at once on an empty folder: one of them creates the database, the other finds it.
    const [server, createdOrg] = await Promise.all([
      startServer(embeddedEnv(dir)).then((s) => (started.push(s), s)),
      cliProcess(dir, 'org', 'create', '--name', 'Made by the CLI', '--tier', 'PRO', '--json'),
    ]);
    expect(createdOrg).toMatchObject({ code: 0, err: '' });
    const org = JSON.parse(createdOrg.out) as { id: string };

    const createdKey = await cliProcess(dir, 'key', 'create', '--org', org.id, '--scopes', 'leads.read,leads.create', '--json');
    expect(createdKey).toMatchObject({ code: 0, err: '' });
    const key = (JSON.parse(createdKey.out) as { key: string }).key;

    const list = await fetch(`http://127.0.0.1:${server.port}/api/v1/leads`, { headers: { Authorization: `Bearer ${key}` } });
    expect(list.status).toBe(200);

    expect(await stopGracefully(server)).toBe(0);
    const again = await startServer(embeddedEnv(dir));
    started.push(again);
    const afterRestart = await fetch(`http://127.0.0.1:${again.port}/api/v1/leads`, { headers: { Authorization: `Bearer ${key}` } });
    expect(afterRestart.status).toBe(200);
    const orgs = await cliProcess(dir, 'org', 'list', '--json');
    expect(orgs.code).toBe(0);
    expect((JSON.parse(orgs.out) as { id: string }[]).map((o) => o.id)).toContain(org.id);
  }, 180_000);

  it('a second npm start on the same folder refuses, naming the process that holds it, and the first keeps serving', async () => {
    const first = await startServer(embeddedEnv(dir));
    started.push(first);
    const second = await startServer(embeddedEnv(dir)).then(
      (s) => (started.push(s), 'started'),
      (err: Error) => err.message,
    );
    expect(second).toMatch(/exited 1 before listening/);
    expect(second).toContain(`in use by process ${first.child.pid}`);
    expect(second).toContain('EMBEDDED_DB_DIR');
    const res = await fetch(`http://127.0.0.1:${first.port}/api/v1/leads?pageSize=1`, { headers: { Authorization: `Bearer ${demoKeyOf(dir)}` } });
    expect(res.status).toBe(200);
  }, 120_000);

  it('refuses a folder the former engine (PGlite) wrote, saying what to do, and leaves it as it was', async () => {
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    const refused = await cliProcess(dir, 'org', 'list');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('holds a database of the former embedded engine (PGlite)');
    expect(refused.err).toContain(`mv ${dir} ${dir}.pglite`);
    expect(readdirSync(dir).sort()).toEqual(['PG_VERSION']);
  }, 60_000);

  it.each([
    ['the service alone is killed (its database keeps running, orphaned)', false],
    ['the service and its database are killed together (a crash: recovery from the write-ahead log)', true],
  ])('keeps every acknowledged write when %s mid-write', async (_name, killDatabaseToo) => {
    const server = await startServer(embeddedEnv(dir));
    started.push(server);
    const key = demoKeyOf(dir);
    const acknowledged: string[] = [];
    let writing = true;
    const writer = async (n: number) => {
      for (let i = 0; writing; i++) {
        try {
          const res = await rpc(server.port, key, 'contacts.create', { name: `Writer ${n} contact ${i}` });
          if (res.status === 200) acknowledged.push(((await res.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id);
        } catch {
          return; // the connection died with the service
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, n) => writer(n));
    while (acknowledged.length < 150) await new Promise((done) => setTimeout(done, 20));
    const postmasterPid = Number(readFileSync(join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    server.child.kill('SIGKILL');
    if (killDatabaseToo) process.kill(postmasterPid, 'SIGKILL');
    await server.exited;
    writing = false;
    await Promise.all(writers);

    const restarted = await startServer(embeddedEnv(dir));
    started.push(restarted);
    const missing: string[] = [];
    for (const id of acknowledged) {
      const res = await getById(restarted.port, key, 'contacts.getById', id);
      if (res.status !== 200) missing.push(`${id}: ${res.status}`);
    }
    expect(missing).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);
  }, 180_000);
});
