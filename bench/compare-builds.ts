import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { createBenchKey, openBenchDatabase, sampleOf } from './lib/dataset';
import { buildService, runCannon, serviceArgs, serviceEnv, startServer, type RunningServer } from './lib/processes';
import { machineLine, median } from './lib/report';
import type { CannonResult } from './lib/cannon';

// `npm run bench:compare -- --baseline <commit> [--database-url URL] [--rounds N] [--quick]`: the REST
// list of this checkout against the build of an older commit, in one run on one machine
// (docs/benchmarking.md#comparing-two-builds). The older commit is checked out as a git worktree
// under .tmp/compare-builds/, given node_modules (linked when its package-lock.json is this one's,
// else `npm ci`) and built with its own `tsc -p tsconfig.build.json`. Its workspace is loaded once,
// by its own migrations and loader (its bench/lib/dataset.ts), into a database of its schema; this
// build gets a copy of it (`create database ... template ...`) migrated forward. Both are kept
// between runs, named by the commit (and this checkout's migrations). Each round starts both
// servers, then runs every case on one and the other, the order reversed every other round.

const argv = process.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const quick = argv.includes('--quick');
const baselineRef = arg('--baseline');
if (!baselineRef) {
  process.stderr.write('usage: npm run bench:compare -- --baseline <commit> [--database-url postgres://...] [--rounds N] [--quick]\n');
  process.exit(2);
}
const serverUrl = arg('--database-url') ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const rounds = Number(arg('--rounds') ?? (quick ? 2 : 3));
const LEADS = quick ? 100_000 : 1_000_000;
const WORKSPACE = `bench large ${LEADS}`;
const TIMING = quick ? { warmupSeconds: 1, seconds: 3 } : { warmupSeconds: 3, seconds: 8 };
const ROOT = resolve(__dirname, '..');

const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
const log = (line: string) => process.stderr.write(`${line}\n`);
const databaseUrl = (name: string) => Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();

/** The older commit as a worktree with node_modules, built by its own compiler settings: its entry. */
function prepareBaseline(sha: string): { dir: string; entry: string } {
  const dir = resolve(ROOT, '.tmp/compare-builds', sha.slice(0, 12));
  if (!existsSync(resolve(dir, 'package.json'))) {
    log(`checking out ${sha.slice(0, 12)} into ${dir}`);
    mkdirSync(resolve(ROOT, '.tmp/compare-builds'), { recursive: true });
    git('worktree', 'add', '--detach', dir, sha);
  }
  if (!existsSync(resolve(dir, 'node_modules'))) {
    const sameLock = readFileSync(resolve(dir, 'package-lock.json'), 'utf8') === readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8');
    if (sameLock) symlinkSync(resolve(ROOT, 'node_modules'), resolve(dir, 'node_modules'));
    else {
      log(`npm ci in ${dir} (its package-lock.json differs from this checkout's)`);
      const installed = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
      if (installed.status !== 0) throw new Error(`npm ci failed in ${dir}`);
    }
  }
  log(`building ${sha.slice(0, 12)} (its own tsconfig.build.json)`);
  return { dir, entry: buildService(dir) };
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const databaseExists = (name: string) => admin(async (c) => (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1);

/**
 * The workspace loaded by the older build's own code (its migrations, its bulk loader) into
 * `name`, and a key to it issued by that code: run with its tsx, from its checkout. The load is
 * skipped when the workspace is there and complete (its ensureWorkspace).
 */
function loadWithBaseline(dir: string, name: string): { orgId: string; key: string } {
  const script = resolve(dir, '.tmp/compare-load.ts');
  mkdirSync(resolve(dir, '.tmp'), { recursive: true });
  writeFileSync(script, `import { openBenchDatabase, ensureWorkspace, createBenchKey } from '../bench/lib/dataset';
async function main() {
  const db = await openBenchDatabase(${JSON.stringify(databaseUrl(name))});
  try {
    const { orgId } = await ensureWorkspace(db, ${JSON.stringify(WORKSPACE)}, ${LEADS}, { rebuildIndexes: true });
    process.stdout.write(JSON.stringify({ orgId, key: await createBenchKey(db, orgId) }));
  } finally {
    await db.destroy();
  }
}
main().catch((err) => { process.stderr.write(String(err && err.stack || err)); process.exit(1); });
`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20 });
  if (run.status !== 0) throw new Error(`the baseline's loader failed in ${dir}`);
  return JSON.parse(run.stdout) as { orgId: string; key: string };
}

/** This checkout's migrations, which name the forward-migrated copy (another set, another copy). */
function migrationsDigest(): string {
  return createHash('sha256').update(readFileSync(resolve(ROOT, 'migrations/index.ts'))).digest('hex').slice(0, 8);
}

/** The baseline's database copied (once) and migrated forward by this build, vacuumed and analysed as a load leaves one. */
async function forwardCopy(template: string, name: string): Promise<void> {
  if (!(await databaseExists(name))) {
    log(`copying ${template} to ${name}`);
    // `template` must have no other session: its servers are stopped by now.
    await admin((c) => c.query(`create database ${name} template ${template}`));
    const db = await openBenchDatabase(databaseUrl(name)); // migrates forward
    try {
      await db.raw('vacuum (analyze)');
    } finally {
      await db.destroy();
    }
  }
}

interface Case { name: string; connections: number; path: string; figure: 'rps' | 'p95' }

function casesOf(sample: { assigneeId: string; rareTerm: string }): Case[] {
  const filters: [string, string][] = [
    ['no filter', ''], ['status=NOT_CONTACTED', '&status=NOT_CONTACTED'], ['assignedToId=<top member>', `&assignedToId=${sample.assigneeId}`],
    ['unassigned (assignedToId=unassigned)', '&assignedToId=unassigned'],
  ];
  return [
    ...filters.map(([name, query]): Case => ({ name: `first page, ${name}`, connections: 50, path: `/api/v1/leads?pageSize=100${query}`, figure: 'rps' })),
    ...filters.map(([name, query]): Case => ({ name: `first page, ${name}`, connections: 10, path: `/api/v1/leads?pageSize=100${query}`, figure: 'p95' })),
    { name: `search, rare term "${sample.rareTerm}"`, connections: 1, path: `/api/v1/leads?pageSize=100&search=${encodeURIComponent(sample.rareTerm)}`, figure: 'p95' },
  ];
}

async function main(): Promise<void> {
  const sha = git('rev-parse', '--verify', `${baselineRef}^{commit}`);
  const head = git('rev-parse', '--short=12', 'HEAD');
  const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
  const baseline = prepareBaseline(sha);
  log('building this checkout');
  const ours = buildService();

  const thenDb = `wsapi_cmp_${sha.slice(0, 12)}_${LEADS}`;
  const nowDb = `${thenDb}_m${migrationsDigest()}`;
  const { orgId, key: thenKey } = loadWithBaseline(baseline.dir, thenDb);
  await forwardCopy(thenDb, nowDb);
  const db = await openBenchDatabase(databaseUrl(nowDb));
  let nowKey: string;
  let sample: Awaited<ReturnType<typeof sampleOf>>;
  let pgVersion: string;
  let autovacuum: string;
  try {
    nowKey = await createBenchKey(db, orgId);
    sample = await sampleOf(db, orgId);
    pgVersion = (await db.raw('select version() as v')).rows[0].v as string;
    autovacuum = (await db.raw('show autovacuum')).rows[0].autovacuum as string;
  } finally {
    await db.destroy();
  }

  const builds = [
    { name: 'today', args: serviceArgs(ours), env: serviceEnv(databaseUrl(nowDb)), key: nowKey },
    { name: 'then', args: serviceArgs(baseline.entry, baseline.dir), env: serviceEnv(databaseUrl(thenDb)), key: thenKey },
  ];
  const cases = casesOf(sample);
  const results = new Map<string, CannonResult[]>();
  for (let round = 1; round <= rounds; round++) {
    const running: RunningServer[] = [];
    try {
      for (const build of builds) running.push(await startServer(build.name, build.args, build.env));
      const order = round % 2 === 1 ? [0, 1] : [1, 0];
      for (const c of cases) {
        for (const i of order) {
          const build = builds[i]!;
          const server = running[i]!;
          const result = await runCannon({ url: `${server.baseUrl}${c.path}`, headers: { Authorization: `Bearer ${build.key}` }, connections: c.connections, ...TIMING }, server.pid);
          if (result.errors + result.non2xx > 0) throw new Error(`${build.name} ${c.name}: ${result.errors} errors, ${result.non2xx} non-2xx`);
          const id = `${build.name} ${c.connections} ${c.name}`;
          results.set(id, [...(results.get(id) ?? []), result]);
          log(`round ${round} ${build.name}, ${c.name} at ${c.connections}: ${result.rps} req/s, p95 ${result.p95} ms`);
        }
      }
    } finally {
      for (const server of running) await server.stop();
    }
  }

  const figureOf = (build: string, c: Case) => median(results.get(`${build} ${c.connections} ${c.name}`)!.map((r) => r[c.figure]));
  const show = (value: number, c: Case) => (c.figure === 'rps' ? String(Math.round(value)) : value.toFixed(1));
  const lines = [
    `${machineLine(pgVersion)}; autovacuum ${autovacuum} on this server (\`show autovacuum\`).`,
    `Today: ${head}${dirty ? ' with uncommitted changes' : ''} (${nowDb}); then: ${sha.slice(0, 12)} (${thenDb}); workspace "${WORKSPACE}";`,
    `${rounds} rounds, both servers started each round, each case on one then the other (the order reversed every other round), ${TIMING.warmupSeconds} s warm-up and ${TIMING.seconds} s counted; medians.`,
    '',
    '| case | connections | figure | today | then | today/then |',
    '|---|---:|---|---:|---:|---:|',
    ...cases.map((c) => {
      const [now, then] = [figureOf('today', c), figureOf('then', c)];
      return `| ${c.name} | ${c.connections} | ${c.figure === 'rps' ? 'req/s' : 'p95 ms'} | ${show(now, c)} | ${show(then, c)} | ${(now / then).toFixed(2)}x |`;
    }),
    '',
    'req/s: higher is better; p95: lower is better. Single rounds on shared cores move by up to a third: read the ratios, and rerun before believing a small one.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
