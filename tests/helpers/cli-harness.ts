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
