import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { openBenchDatabase, ensureWorkspace, createBenchKey, DEFAULT_BENCH_URL } from './lib/dataset';
import { buildService, sampleRss, serviceArgs, serviceEnv, withServer } from './lib/processes';
import { getPage, walk } from './lib/walk';
import { exportCopyStatement, type ExportFormat } from '../src/db/leads';

// `npx tsx bench/export.ts [--leads N] [--rounds R] [--walk-seconds S]`: the export's targets
// (issue 49) as ratios in one run: rows a second of GET /api/v1/leads/export (CSV and NDJSON,
// uncompressed, and NDJSON gzipped) against psql running the same COPY statement (same columns,
// filter, order) to stdout, and against a walk of the REST list's numbered pages of 100 (the
// target's walk: its time summed from sampled depths) and a cursor walk (for at most S seconds,
// its rate extrapolated); the compiled service's RSS before and at its peak. The
// database is BENCH_DATABASE_URL, else DATABASE_URL, else the local wsapi_bench; the workspace is
// `bench large N` (N = 1,000,000 unless given), loaded on the first run. Each round runs the cases
// in a rotated order; medians are printed. Prints a Markdown table.

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const LEADS = arg('leads', 1_000_000);
const ROUNDS = arg('rounds', 3);
const WALK_SECONDS = arg('walk-seconds', 20);
const url = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? DEFAULT_BENCH_URL;

interface Run { rows: number; bytes: number; seconds: number; peakRssMb?: number }

/** psql running `statement` (a COPY ... TO STDOUT), its output counted and thrown away. */
function psqlCopy(statement: string, headerRows: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('psql', [url, '-X', '-q', '-c', statement], { stdio: ['ignore', 'pipe', 'inherit'] });
    let bytes = 0;
    let rows = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve({ rows: rows - headerRows, bytes, seconds: (performance.now() - started) / 1000 }) : reject(new Error(`psql exited ${code}`))));
  });
}

/** The service's export read to its end as fast as this process reads; rows are lines (CSV less its header). */
function httpExport(baseUrl: string, key: string, format: ExportFormat, gzip: boolean, pid: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const rss = sampleRss(pid, 50);
    const started = performance.now();
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    if (gzip) headers['Accept-Encoding'] = 'gzip';
    get(`${baseUrl}/api/v1/leads/export?format=${format}`, { headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
      let bytes = 0;
      let rows = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (!gzip) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++;
      });
      res.on('end', () => resolve({ rows: gzip ? LEADS : format === 'csv' ? rows - 1 : rows, bytes, seconds: (performance.now() - started) / 1000, peakRssMb: rss.stop() }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/**
 * How long a walk of every numbered page (`?page=N&pageSize=100`, as the spec pages the list)
 * takes, without walking all of them: a page's time grows with its depth (the rows before it are
 * skipped), so the median of a few requests at sampled depths is summed over every page by linear
 * interpolation between depths.
 */
async function pageWalkSeconds(baseUrl: string, key: string, pages: number): Promise<{ seconds: number; samples: string }> {
  const depths = [...new Set([1, ...[0.1, 0.25, 0.5, 0.75, 1].map((f) => Math.max(1, Math.round(f * pages)))])].sort((a, b) => a - b);
  const at: { page: number; ms: number }[] = [];
  for (const page of depths) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      await getPage(baseUrl, key, { page: String(page), pageSize: '100' });
      times.push(performance.now() - started);
    }
    at.push({ page, ms: median(times) });
  }
  let ms = 0;
  for (let i = 1; i < at.length; i++) ms += ((at[i - 1]!.ms + at[i]!.ms) / 2) * (at[i]!.page - at[i - 1]!.page);
  ms += at[0]!.ms;
  return { seconds: ms / 1000, samples: at.map((a) => `page ${a.page.toLocaleString('en')} ${a.ms.toFixed(0)} ms`).join(', ') };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const rate = (run: Run) => run.rows / run.seconds;

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const workspace = await ensureWorkspace(db, `bench large ${LEADS}`, LEADS, { rebuildIndexes: LEADS >= 1_000_000 });
  const key = await createBenchKey(db, workspace.orgId);
  const statements = { csv: exportCopyStatement(db, workspace.orgId, {}, 'csv'), ndjson: exportCopyStatement(db, workspace.orgId, {}, 'ndjson') };
  await db.destroy();

  const entry = buildService();
  await withServer('service', serviceArgs(entry), serviceEnv(url, 'warn'), async (server) => {
    const rssAtStart = sampleRss(server.pid).stop();
    const cases: Record<string, () => Promise<Run>> = {
      'psql COPY, CSV': () => psqlCopy(statements.csv, 1),
      'psql COPY, NDJSON': () => psqlCopy(statements.ndjson, 0),
      'export, CSV': () => httpExport(server.baseUrl, key, 'csv', false, server.pid),
      'export, NDJSON': () => httpExport(server.baseUrl, key, 'ndjson', false, server.pid),
      'export, NDJSON gzipped': () => httpExport(server.baseUrl, key, 'ndjson', true, server.pid),
    };
    const runs = new Map<string, Run[]>(Object.keys(cases).map((name) => [name, []]));
    const names = Object.keys(cases);
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
        process.stderr.write(`round ${round + 1}: ${name}\n`);
        const run = await cases[name]!();
        if (!name.includes('gzipped') && run.rows !== LEADS) throw new Error(`${name} answered ${run.rows} rows, not ${LEADS}`);
        runs.get(name)!.push(run);
      }
    }
    process.stderr.write(`walking the REST list by cursor for up to ${WALK_SECONDS} s\n`);
    const walked = await walk(server.baseUrl, key, LEADS, 'cursor', WALK_SECONDS);
    const cursorRate = walked.ids / walked.seconds;
    process.stderr.write('timing the REST list\'s numbered pages at sampled depths\n');
    const paged = await pageWalkSeconds(server.baseUrl, key, Math.ceil(LEADS / 100));
    const walkRate = LEADS / paged.seconds;

    const lines = [
      `Export of ${LEADS.toLocaleString('en')} leads, ${ROUNDS} rounds (medians); service RSS ${rssAtStart} MB before`,
      '',
      '| case | rows/s | MB | s | vs psql COPY | vs REST page walk | service peak RSS |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ];
    for (const [name, list] of runs) {
      const rows = median(list.map(rate));
      const seconds = median(list.map((r) => r.seconds));
      const mb = median(list.map((r) => r.bytes)) / 1e6;
      const psql = median(runs.get(name.includes('CSV') ? 'psql COPY, CSV' : 'psql COPY, NDJSON')!.map(rate));
      const peak = list[0]!.peakRssMb === undefined ? '' : `${Math.max(...list.map((r) => r.peakRssMb!))} MB (+${Math.max(0, Math.max(...list.map((r) => r.peakRssMb!)) - rssAtStart)})`;
      lines.push(`| ${name} | ${Math.round(rows).toLocaleString('en')} | ${mb.toFixed(1)} | ${seconds.toFixed(2)} | ${(rows / psql).toFixed(2)}x | ${(rows / walkRate).toFixed(1)}x | ${peak} |`);
    }
    lines.push(`| REST list walk, numbered pages of 100 (the spec's page/pageSize; time summed from sampled depths: ${paged.samples}) | ${Math.round(walkRate).toLocaleString('en')} | | ${paged.seconds.toFixed(0)} | | 1x | |`);
    lines.push(`| REST list walk, cursor, 100 a page (${WALK_SECONDS} s, extrapolated) | ${Math.round(cursorRate).toLocaleString('en')} | | ${walked.seconds.toFixed(2)} (${walked.pages} pages) | | ${(cursorRate / walkRate).toFixed(1)}x | |`);
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
