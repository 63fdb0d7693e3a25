import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

export interface LoadServer {
  baseUrl: string;
  pid: number;
  logFile: string;
  /** When the key-cache LISTEN connection reported itself live (ms since the epoch), each time. */
  listenerLiveAt(): number[];
  stop(): Promise<void>;
}

/** Written by src/auth/key-invalidation.ts each time the process's LISTEN connection (src/live/notification-listener.ts) is (again) live. */
const LISTENER_LIVE = 'API key cache invalidation: listening';

/**
 * Compiles the service as `npm run build` does (into a cache folder; dist/ is left alone) and
 * starts it as in production, its JSON log written to a file in the temp folder.
 */
export async function startLoadServer(env: Record<string, string>): Promise<LoadServer> {
  const outDir = resolve(ROOT, 'node_modules/.cache/wsapi-load-dist');
  const built = spawnSync(resolve(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json', '--outDir', outDir], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  const entry = join(outDir, 'src/index.js');
  if (!existsSync(entry)) throw new Error(`the build produced no ${entry}:\n${built.stdout}${built.stderr}`);

  const logFile = join(tmpdir(), `wsapi-load-${Date.now()}.log`);
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      SESSION_SECRET: randomBytes(32).toString('hex'),
      TOKEN_SECRET: randomBytes(32).toString('hex'),
      // 50 clients on a few keys would meet the per-key rate limit; the load test measures the rest.
      RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const listenerLiveAt: number[] = [];
  let port: number | undefined;
  let partial = '';
  const onLine = (line: string) => {
    port ??= Number(/listening on http:\/\/localhost:(\d+)/.exec(line)?.[1]) || undefined;
    if (line.includes(LISTENER_LIVE)) listenerLiveAt.push(Date.now());
  };
  child.stdout!.on('data', (chunk: Buffer) => {
    log.write(chunk);
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop()!;
    parts.forEach(onLine);
  });
  child.stderr!.on('data', (chunk: Buffer) => log.write(chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  // Interrupted (Ctrl-C) or crashed: the server must not outlive the run.
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));

  const deadline = Date.now() + 60_000;
  while (port === undefined) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start (exit ${child.exitCode}); its log: ${logFile}`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    logFile,
    listenerLiveAt: () => listenerLiveAt,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      await new Promise((done) => log.end(done));
    },
  };
}
