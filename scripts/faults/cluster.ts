import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const PG_BIN = '/usr/lib/postgresql/15/bin';

/** The repository's root (this file is scripts/faults/cluster.ts). */
const REPOSITORY = resolve(__dirname, '..', '..');

/** ../shared/citus/cluster.sh from the repository's root, as .ci/run finds it (CI_CITUS_CLUSTER or TEST_DATABASE_COMMAND first). */
export function findClusterScript(): string {
  const candidates = [process.env.CI_CITUS_CLUSTER, process.env.TEST_DATABASE_COMMAND, resolve(REPOSITORY, '..', 'shared', 'citus', 'cluster.sh')];
  const found = candidates.find((path) => path && existsSync(path));
  if (!found) throw new Error('no Citus cluster script: set CI_CITUS_CLUSTER to ../shared/citus/cluster.sh');
  return found;
}

/**
 * A Citus cluster of the fault test's own (a coordinator and two workers on `port`..`port + 2`,
 * data in `dir`), made by the shared cluster.sh, so that stopping its nodes touches nothing else.
 * Node 0 is the coordinator, 1 and 2 the workers.
 */
export function createFaultCluster(script: string, port: number, dir: string) {
  const env = { ...process.env, CITUS_PORT: String(port), CITUS_DIR: dir };
  const run = (...args: string[]) => {
    const result = spawnSync(script, args, { env, encoding: 'utf8', timeout: 600_000 });
    if (result.status !== 0) throw new Error(`cluster.sh ${args.join(' ')}: ${result.stderr || result.stdout}`);
    return result.stdout.trim();
  };
  const asPostgres = (command: string) =>
    (process.getuid?.() === 0 ? execFileAsync('su', ['postgres', '-s', '/bin/bash', '-c', command], { timeout: 120_000 }) : execFileAsync('bash', ['-c', command], { timeout: 120_000 }));
  const nodeDir = (node: number) => `${dir}/n${node}`;
  /** The node's postmaster and every process it started (its backends and workers). */
  const processesOf = (node: number): number[] => {
    const postmaster = Number(readFileSync(`${nodeDir(node)}/postmaster.pid`, 'utf8').split('\n')[0]);
    const children = spawnSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).map(Number);
    return [postmaster, ...children];
  };
  let hung: number[] = [];

  return {
    address: (node: number) => `127.0.0.1:${port + node}`,
    start: () => run('start'),
    createDatabase(name: string): string {
      run('dropdb', name);
      return run('createdb', name).split('\n').at(-1)!;
    },
    dropDatabase: (name: string) => run('dropdb', name),
    stopAll: () => run('stop'),
    /** SIGSTOP: the node keeps its sockets open and answers nothing, as a hung machine does. */
    hang(node: number): void {
      hung = processesOf(node);
      for (const pid of hung) process.kill(pid, 'SIGSTOP');
    },
    resume(): void {
      for (const pid of hung) process.kill(pid, 'SIGCONT');
      hung = [];
    },
    /** A fast shutdown: sessions end at once, connections are refused until `startNode`. */
    stopNode: (node: number) => asPostgres(`${PG_BIN}/pg_ctl -D '${nodeDir(node)}' -m fast -w stop >/dev/null`),
    /** Resolves once the node accepts connections again. */
    startNode: (node: number) => asPostgres(`${PG_BIN}/pg_ctl -D '${nodeDir(node)}' -l '${dir}/n${node}.log' -w start >/dev/null`),
    /** Whatever the run did, nothing stays stopped or hung. */
    heal(): void {
      if (hung.length > 0) this.resume();
      run('start');
    },
  };
}

export type FaultCluster = ReturnType<typeof createFaultCluster>;
