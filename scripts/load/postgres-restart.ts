import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';

const execFileAsync = promisify(execFile);

/** The local cluster serving `port`, as pg_lsclusters lists it ("15 main"). */
export function clusterServing(port: number): { version: string; name: string } {
  const listed = spawnSync('pg_lsclusters', ['--no-header'], { encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`--restart-postgres needs pg_lsclusters (Debian's postgresql-common): ${listed.stderr || listed.error}`);
  for (const line of listed.stdout.split('\n')) {
    const [version, name, clusterPort] = line.trim().split(/\s+/);
    if (version && name && Number(clusterPort) === port) return { version, name };
  }
  throw new Error(`no local cluster listens on port ${port} (pg_lsclusters: ${listed.stdout.trim()})`);
}

/** pg_ctlcluster's exit code 2: already in the state asked for (start of a running cluster). */
const ALREADY = 2;

/**
 * Stops and starts a local cluster without blocking the event loop (the load goes on meanwhile).
 * Whatever happens to the run (an exception, Ctrl-C, SIGTERM, process.exit), a cluster this
 * process stopped is started again before the process ends.
 */
export function createPostgresRestarter(cluster: { version: string; name: string }) {
  // `fast`: active sessions are ended at once (57P01), as in a restart for maintenance or a failover.
  const args = (action: 'stop' | 'start') => ['--skip-systemctl-redirect', ...(action === 'stop' ? ['-m', 'fast'] : []), cluster.version, cluster.name, action];
  let stoppedByUs = false;

  /** The synchronous last resort, for exit and signal handlers. */
  const startNowIfStopped = () => {
    if (!stoppedByUs) return;
    const result = spawnSync('pg_ctlcluster', args('start'), { encoding: 'utf8', timeout: 120_000 });
    if (result.status === 0 || result.status === ALREADY) stoppedByUs = false;
    else process.stderr.write(`could not start PostgreSQL ${cluster.version}/${cluster.name} again: ${result.stderr}\n`);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`\n${signal}: starting PostgreSQL again before exiting\n`);
    startNowIfStopped();
    process.exit(130);
  };
  process.on('exit', startNowIfStopped);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

  return {
    label: `${cluster.version}/${cluster.name}`,
    /** Resolves once the cluster has stopped (pg_ctl waits for it). */
    async stop(): Promise<void> {
      stoppedByUs = true;
      await execFileAsync('pg_ctlcluster', args('stop'), { timeout: 120_000 });
    },
    /** Resolves once the cluster accepts connections again (pg_ctl -w). */
    async start(): Promise<void> {
      if (!stoppedByUs) return;
      try {
        await execFileAsync('pg_ctlcluster', args('start'), { timeout: 120_000 });
      } catch (err) {
        if ((err as { code?: unknown }).code !== ALREADY) throw err;
      }
      stoppedByUs = false;
    },
    dispose(): void {
      startNowIfStopped();
      process.off('exit', startNowIfStopped);
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(signal, onSignal);
    },
  };
}

/**
 * Resolves with the first moment PostgreSQL answers a query again (polled every 100 ms): the
 * moment recovery is measured from, since pg_ctl's own wait returns later on a busy machine.
 */
export async function firstAccepting(url: string, deadlineMs = 120_000): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return Date.now();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(`PostgreSQL did not accept connections within ${deadlineMs} ms`);
}
