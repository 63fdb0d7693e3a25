import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Named statements, as in production. */
export const NAMED_STATEMENTS = 'true';

/** The service started as `npm start` starts it: its own process, so signals and exits are real. */
export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** Every line written so far (stdout's JSON log lines and stderr). */
  lines: string[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Resolves with the first line (already written or still to come) matching `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

export function startServer(env: Record<string, string | undefined>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    cwd: ROOT,
    // NODE_ENV=test: JSON log lines (no pretty printer), which the tests read.
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CHECK_OUTPUTS: 'true', DB_NAMED_STATEMENTS: NAMED_STATEMENTS, ...env },
  });
  const lines: string[] = [];
  const watchers = new Set<(line: string) => void>();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const push = (line: string) => {
    lines.push(line);
    for (const watcher of watchers) watcher(line);
  };
  child.stderr!.on('data', (chunk) => push(String(chunk)));
  let partial = '';
  child.stdout!.on('data', (chunk) => {
    const parts = (partial + String(chunk)).split('\n');
    partial = parts.pop()!;
    parts.filter(Boolean).forEach(push);
  });

  function waitForLine(pattern: RegExp, timeoutMs = 10_000): Promise<string> {
    const seen = lines.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        watchers.delete(watcher);
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${lines.join('\n')}`));
      }, timeoutMs);
      // A process that exited first leaves nothing for the wait to see; it must not keep jest alive.
      timer.unref();
      const watcher = (line: string) => {
        if (!pattern.test(line)) return;
        clearTimeout(timer);
        watchers.delete(watcher);
        resolve(line);
      };
      watchers.add(watcher);
    });
  }

  const listening = waitForLine(/listening on http:\/\/localhost:\d+/, 60_000);
  const failed = exited.then((code) => {
    throw new Error(`exited ${code} before listening:\n${lines.join('\n')}`);
  });
  return Promise.race([listening, failed]).then((line) => ({
    child,
    port: Number(/listening on http:\/\/localhost:(\d+)/.exec(line)![1]),
    lines,
    exited,
    waitForLine,
  }));
}

/**
 * Stops a server a test started, whatever became of the test: SIGTERM, then SIGKILL if it has not
 * exited within 10 s; then the embedded PostgreSQL in `embeddedDir`, should the server have left
 * it running (it runs detached, so a killed server leaves it behind).
 */
export async function stopServer(server: ServerProcess | undefined, embeddedDir?: string): Promise<void> {
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGTERM');
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
    await server.exited;
    clearTimeout(timer);
  }
  if (embeddedDir) await stopEmbeddedPostgresIn(embeddedDir);
}

/** Stops the embedded PostgreSQL running on `embeddedDir` (its postmaster.pid), if any: fast shutdown, then SIGKILL. */
export async function stopEmbeddedPostgresIn(embeddedDir: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(join(embeddedDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!Number.isInteger(pid) || pid <= 0 || !alive()) return;
  process.kill(pid, 'SIGINT'); // PostgreSQL's fast shutdown
  for (let waited = 0; waited < 10_000 && alive(); waited += 100) await sleep(100);
  if (alive()) process.kill(pid, 'SIGKILL');
}

/** Kills a server a failed test left running, so jest does not hang on it. */
export function killIfRunning(server: ServerProcess | undefined): void {
  if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
}

/** A raw TCP connection to the server, with everything it receives collected. */
export async function openConnection(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (chunk) => (data += String(chunk)));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => data, closed };
}

/** Answers the error code of a connection attempt (`ECONNREFUSED`), or 'connected'. */
export function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
