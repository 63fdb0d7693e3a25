import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, connect } from 'node:net';
import { existsSync, readFileSync, readdirSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CannonJob, CannonResult } from './cannon';

const ROOT = resolve(__dirname, '..', '..');

export interface RunningServer {
  name: string;
  pid: number;
  baseUrl: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise((done) => server.close(done));
  return port;
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before listening`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1', () => (socket.end(), done(true)));
      socket.on('error', () => done(false));
    });
    if (open) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`server did not listen on ${port} within ${timeoutMs} ms`);
}

/**
 * Compiles the service as `npm run build` does, into .tmp/bench-dist (dist/ is left alone), so it
 * runs as in production: tsx's loader would add about 35 MB of RSS. Type errors still emit. A
 * folder of this checkout's own, so two worktrees sharing one node_modules never build into one.
 * `dir` names another checkout to build (a git worktree of an older commit, for "before" figures).
 */
export function buildService(dir = ROOT): string {
  const outDir = resolve(dir, '.tmp/bench-dist');
  spawnSync(resolve(dir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: dir, stdio: 'ignore', timeout: 120_000 });
  const entry = resolve(outDir, 'src/index.js');
  if (!existsSync(entry)) throw new Error(`build produced no ${entry}`);
  return entry;
}

/**
 * `node`'s arguments to run the compiled service at `entry` as production runs it: the node flags
 * of `npm run start:prod` (the Dockerfile's CMD is the same command; a test holds them equal), as
 * the package.json of checkout `dir` says them.
 */
export function serviceArgs(entry: string, dir = ROOT): string[] {
  const { scripts } = JSON.parse(readFileSync(resolve(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const [command, ...words] = (scripts['start:prod'] ?? '').split(/\s+/);
  if (command !== 'node' || words.at(-1) !== 'dist/src/index.js') throw new Error('start:prod is not `node [flags] dist/src/index.js`');
  return [...words.slice(0, -1), entry];
}

/** The pool size of every benchmark server, ours and the ceilings alike. */
export const BENCH_POOL_MAX = '10';

/**
 * The environment of the compiled service in every benchmark: production, its request log at
 * `logLevel` (to /dev/null), fresh secrets, and rate limiting off (50 connections on one key would
 * meet the BUSINESS limit within a second).
 */
export function serviceEnv(databaseUrl: string, logLevel: 'info' | 'warn' = 'info'): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl, DB_POOL_MAX: BENCH_POOL_MAX, NODE_ENV: 'production', LOG_LEVEL: logLevel, RATE_LIMIT_PER_MINUTE: '0',
    SESSION_SECRET: randomBytes(32).toString('hex'), TOKEN_SECRET: randomBytes(32).toString('hex'),
  };
}

/** Starts `node <args>` as its own process on a loopback port; its output goes to `stdoutPath`, or /dev/null. */
export async function startServer(name: string, nodeArgs: string[], env: Record<string, string>, stdoutPath = '/dev/null'): Promise<RunningServer> {
  const port = await freePort();
  const stdout = openSync(stdoutPath, 'w');
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', stdout, 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  try {
    await waitForPort(port, child, 30_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${name}: ${(err as Error).message}\n${stderr}`);
  }
  return {
    name,
    pid: child.pid!,
    baseUrl: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A process's CPU time so far (user + system), in microseconds, from /proc/<pid>/stat. */
export function cpuTimeUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * The postmaster of the PostgreSQL server a backend (`select pg_backend_pid()`) belongs to, when
 * that server runs on this machine; undefined otherwise. For runCannon, to count that server's
 * processes alone when other clusters (a Citus test cluster, say) run here too.
 */
export function postmasterOf(backendPid: number): number | undefined {
  try {
    if (readFileSync(`/proc/${backendPid}/comm`, 'utf8').trim() !== 'postgres') return undefined;
    const parent = Number(readFileSync(`/proc/${backendPid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    return readFileSync(`/proc/${parent}/comm`, 'utf8').trim() === 'postgres' ? parent : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU time so far of every PostgreSQL process on this machine (backends, WAL writer, autovacuum),
 * or of the postmaster `postmasterPid` and its children alone, in microseconds, by process (its
 * pid and start time, so a reused pid is another process).
 */
export function postgresCpuTimes(postmasterPid?: number): Map<string, number> {
  const times = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // The parent's pid is field 4 of stat.
      if (postmasterPid !== undefined && Number(entry) !== postmasterPid && Number(fields[1]) !== postmasterPid) continue;
      // utime, stime and starttime are fields 14, 15 and 22 of stat (ticks, 100 per second on Linux).
      times.set(`${entry}:${fields[19]}`, (Number(fields[11]) + Number(fields[12])) * 10_000);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return times;
}

/**
 * PostgreSQL's CPU time since `before` (postgresCpuTimes' answer then), in microseconds: over a
 * counted run, the database's share of each request, the figure a change to a query's planning or
 * execution moves. Process by process, so one that exits meanwhile (an idle pooled connection
 * closed, an autovacuum worker done) drops out instead of taking its whole life's CPU off the
 * total; what it spent within the run is lost, so the pool under test must stay open across the
 * run (it does: DB_POOL_MAX connections, opened during the warm-up).
 */
export function postgresCpuSince(before: Map<string, number>, postmasterPid?: number): number {
  let total = 0;
  for (const [id, us] of postgresCpuTimes(postmasterPid)) total += us - (before.get(id) ?? 0);
  return total;
}

/**
 * Drives a server with autocannon from a separate process. With the server's pid, also reports
 * the server's CPU time per request over the counted run: the steadier comparison on a machine
 * where the load generator and the database share the cores; and PostgreSQL's, of every
 * `postgres` process here, or with `postmasterPid` (postmasterOf's) of that server's alone.
 */
export async function runCannon(job: CannonJob, serverPid?: number, postmasterPid?: number): Promise<CannonResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'bench/lib/cannon.ts')], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin!.end(JSON.stringify(job));
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  let cpuAtStart: number | undefined;
  let databaseCpuAtStart: Map<string, number> | undefined;
  child.stderr!.on('data', (chunk) => {
    err += chunk;
    if (serverPid !== undefined && cpuAtStart === undefined && err.includes('COUNTED_RUN_STARTS')) {
      cpuAtStart = cpuTimeUs(serverPid);
      databaseCpuAtStart = postgresCpuTimes(postmasterPid);
    }
  });
  const limit = (job.warmupSeconds + job.seconds + 60) * 1000;
  const timer = setTimeout(() => child.kill('SIGKILL'), limit);
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`autocannon exited ${code}: ${err}`);
  const result = JSON.parse(out) as CannonResult;
  if (serverPid !== undefined && cpuAtStart !== undefined && result.requests > 0) {
    result.serverCpuUsPerRequest = Math.round((cpuTimeUs(serverPid) - cpuAtStart) / result.requests);
    result.databaseCpuUsPerRequest = Math.round(postgresCpuSince(databaseCpuAtStart!, postmasterPid) / result.requests);
  }
  return result;
}

/** Samples a process's resident memory (VmRSS) until stopped; answers the peak in MB. */
export function sampleRss(pid: number, everyMs = 200): { stop(): number } {
  let peakKb = 0;
  const read = () => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peakKb = Math.max(peakKb, Number(match[1]));
    } catch {
      // The process has gone; keep the peak seen so far.
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return Math.round(peakKb / 1024);
    },
  };
}

/** Runs `fn` against a server started for it, and stops the server whatever `fn` does. */
export async function withServer<T>(name: string, nodeArgs: string[], env: Record<string, string>, fn: (s: RunningServer) => Promise<T>): Promise<T> {
  const server = await startServer(name, nodeArgs, env);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}
