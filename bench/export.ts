import { spawn } from 'node:child_process';
import { get } from 'node:http';
import { openBenchDatabase, ensureWorkspace, createBenchKey, DEFAULT_BENCH_URL } from './lib/dataset';
import { buildService, sampleRss, serviceArgs, serviceEnv, withServer } from './lib/processes';
import { walk } from './lib/walk';
import { exportCopyStatement, type ExportFormat } from '../src/db/leads';

// `npx tsx bench/export.ts [--leads N] [--rounds R] [--walk-seconds S]`: the export's targets
// (issue 49) as ratios in one run: rows a second of GET /api/v1/leads/export (CSV and NDJSON,
// uncompressed, and NDJSON gzipped) against psql running the same COPY statement (same columns,
// filter, order) to stdout, and against a cursor walk of the REST list at 100 a page (for at most
// S seconds, its rate extrapolated); the compiled service's RSS before and at its peak. The
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
    const walkRate = walked.ids / walked.seconds;

    const lines = [
      `Export of ${LEADS.toLocaleString('en')} leads, ${ROUNDS} rounds (medians); service RSS ${rssAtStart} MB before`,
      '',
      '| case | rows/s | MB | s | vs psql COPY | vs REST walk | service peak RSS |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ];
    for (const [name, list] of runs) {
      const rows = median(list.map(rate));
      const seconds = median(list.map((r) => r.seconds));
      const mb = median(list.map((r) => r.bytes)) / 1e6;
      const psql = median(runs.get(name.includes('CSV') ? 'psql COPY, CSV' : 'psql COPY, NDJSON')!.map(rate));
      const peak = list[0]!.peakRssMb === undefined ? '' : `${Math.max(...list.map((r) => r.peakRssMb!))} MB (+${Math.max(...list.map((r) => r.peakRssMb!)) - rssAtStart})`;
      lines.push(`| ${name} | ${Math.round(rows).toLocaleString('en')} | ${mb.toFixed(1)} | ${seconds.toFixed(2)} | ${(rows / psql).toFixed(2)}x | ${(rows / walkRate).toFixed(1)}x | ${peak} |`);
    }
    lines.push(`| REST list walk, cursor, 100 a page | ${Math.round(walkRate).toLocaleString('en')} | | ${walked.seconds.toFixed(2)} (${walked.pages} pages) | | 1x | |`);
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
