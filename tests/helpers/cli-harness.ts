import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { runCli } from '../../src/cli/run-cli';
import { testDatabaseUrl } from './test-app';
import { TEST_JWT_SECRETS } from './test-secrets';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Runs the operators' CLI in-process against the run's database, collecting what it writes. */
export function cli(...argv: string[]): Promise<CliRun> {
  return cliOn(testDatabaseUrl(), ...argv);
}

/** Runs the operators' CLI in-process against the database at `url`, with the secrets the tests' apps use (as a deployment shares them). */
export async function cliOn(url: string, ...argv: string[]): Promise<CliRun> {
  return cliWithEnv({ DATABASE_URL: url, ...TEST_JWT_SECRETS }, ...argv);
}

/** Runs the operators' CLI in-process with exactly this environment. */
export async function cliWithEnv(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<CliRun> {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    env,
    out: { write: (text: string) => (out += text) },
    err: { write: (text: string) => (err += text) },
  });
  return { code, out, err };
}

/**
 * Runs the CLI as the operators do, a process of its own (`tsx src/cli/main.ts`), its stdout and
 * stderr pipes (not terminals), with the test process's environment plus `env`.
 */
export function cliProcess(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<CliRun> {
  return new Promise((done) => {
    execFile('npx', ['tsx', 'src/cli/main.ts', ...argv], { cwd: resolve(__dirname, '../..'), env: { ...process.env, ...env }, timeout: 60_000 }, (err, out, errOut) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      done({ code, out, err: errOut });
    });
  });
}

/** Runs a `--json` command that must succeed and answers its parsed output. */
export function cliJson<T = any>(...argv: string[]): Promise<T> {
  return cliJsonOn<T>(testDatabaseUrl(), ...argv);
}

/** `cliJson` against the database at `url`. */
export async function cliJsonOn<T = any>(url: string, ...argv: string[]): Promise<T> {
  const run = await cliOn(url, ...argv, '--json');
  if (run.code !== 0) throw new Error(`cli ${argv.join(' ')} exited ${run.code}: ${run.err}`);
  expect(run.err).toBe('');
  return JSON.parse(run.out) as T;
}

/** Polls `read` every 25ms until `done` holds for its value, for at most `timeoutMs`; answers the last value. */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  return value;
}
