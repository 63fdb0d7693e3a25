import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import type { Db } from '../src/db/knex';
import * as orgsQueries from '../src/db/orgs';
import * as membersQueries from '../src/db/members';
import { newId } from '../src/domain/ids';
import { openBenchDatabase, createBenchKey, DEFAULT_BENCH_URL, postgresVersion } from './lib/dataset';
import { buildService, runCannon, sampleRss, serviceArgs, serviceEnv, withServer } from './lib/processes';
import { machineLine } from './lib/report';

// `npm run bench:import [-- --rows N --size-mb M --seconds S]`: the import targets of issue 49 as
// ratios in one run on one machine (BENCH_DATABASE_URL, or wsapi_bench; take the figures on a
// PostgreSQL with default settings, autovacuum on: docs/performance.md):
// - an import of N (100,000) valid leads, CSV with every field, into an empty workspace: rows/s
//   from the upload to `succeeded`, the job run by `npm run worker` (compiled) as its own process;
// - against leads.create at 50 connections (rows/s = creates/s), target >= 10x;
// - against COPY FROM STDIN of the same rows into contacts and leads, no derived rows, target >= 0.25x;
// - the worker's peak RSS while it imports a file of M (100) MB, target < 250 MB and flat in the size
//   (the API's peak RSS during the upload is printed beside it).
// Markdown on stdout, progress on stderr. A small run checks the script: --rows 500 --size-mb 2 --seconds 2.
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const ROWS = arg('rows', 100_000);
const SIZE_MB = arg('size-mb', 100);
const SECONDS = arg('seconds', 10);
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;
const TMP = resolve(__dirname, '..', '.tmp', 'bench-import');
const runTag = Date.now() % 1_000_000;

interface Workspace { orgId: string; key: string; memberId: string }

async function newWorkspace(db: Db, label: string): Promise<Workspace> {
  const org = await orgsQueries.create(db, { name: `bench import ${label} ${runTag}`, tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
  const member = await membersQueries.create(db, org.id, { name: `bench member ${runTag}`, email: `bench-${runTag}-${label}@example.com`, permissions: [] });
  return { orgId: org.id, key: await createBenchKey(db, org.id), memberId: member.id };
}

/** Row i of the benchmark's file: every column, distinct phones, emails and external ids. */
function row(i: number, memberId: string) {
  const n = String(i % 100_000_000).padStart(8, '0');
  return {
    name: `Bench Import ${runTag} ${i}`, phone: `+4474${n}`, phones: `+4475${n};+4477${n}`, email: `import${i}@example.com`,
    emails: `import${i}@example.org`, company: `Company ${i % 500}`, source: 'import', notes: 'Imported by bench/import.ts',
    status: i % 3 === 0 ? 'CONTACTED' : 'NOT_CONTACTED', nextCallAt: '2031-01-01T09:00:00.000Z', assignedToId: i % 2 === 0 ? memberId : '',
    externalId: `bench-${runTag}-${i}`,
  };
}
const COLUMNS = ['name', 'phone', 'phones', 'email', 'emails', 'company', 'source', 'notes', 'status', 'nextCallAt', 'assignedToId', 'externalId'] as const;

/** Writes a CSV file of rows until `rows` rows or `bytes` bytes; answers its path and row count. */
async function writeCsv(name: string, memberId: string, limit: { rows?: number; bytes?: number }): Promise<{ path: string; rows: number }> {
  mkdirSync(TMP, { recursive: true });
  const path = resolve(TMP, name);
  const out = createWriteStream(path);
  const header = `${COLUMNS.join(',')}\n`;
  out.write(header);
  let written = 0;
  let bytes = header.length;
  while (limit.rows === undefined || written < limit.rows) {
    const r = row(written, memberId);
    const line = `${COLUMNS.map((c) => r[c]).join(',')}\n`;
    // Up to the limit, never past it: the upload refuses a byte more (413).
    if (limit.bytes !== undefined && bytes + line.length > limit.bytes) break;
    bytes += line.length;
    written++;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return { path, rows: written };
}

/** Uploads the file to the API and waits for the import to end, the worker's RSS sampled; answers seconds and the peak. */
async function importFile(apiUrl: string, workerPid: number, ws: Workspace, path: string): Promise<{ seconds: number; workerRssMb: number; status: string }> {
  const rss = sampleRss(workerPid, 100);
  const started = performance.now();
  const res = await fetch(`${apiUrl}/api/v1/imports?resource=leads&mode=create`, {
    method: 'POST', headers: { Authorization: `Bearer ${ws.key}`, 'Content-Type': 'text/csv' },
    body: Readable.toWeb(createReadStream(path)) as unknown as string, duplex: 'half',
  } as RequestInit);
  if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  for (;;) {
    const job = (await (await fetch(`${apiUrl}/api/v1/imports/${id}`, { headers: { Authorization: `Bearer ${ws.key}` } })).json()) as { status: string; rows: { failed: number } };
    if (job.status !== 'queued' && job.status !== 'running') {
      if (job.rows.failed > 0) process.stderr.write(`    ${job.rows.failed} rows failed\n`);
      return { seconds: (performance.now() - started) / 1000, workerRssMb: rss.stop(), status: job.status };
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

/** COPY of the same rows into contacts and leads (no derived rows), streamed; answers seconds. */
async function copyRows(db: Db, ws: Workspace, rows: number): Promise<number> {
  const started = performance.now();
  const connection = await db.client.acquireConnection();
  try {
    const copy = async (sql: string, lineOf: (i: number) => string) => {
      async function* lines() {
        for (let i = 0; i < rows; i++) yield lineOf(i);
      }
      await pipeline(Readable.from(lines()), connection.query(copyFrom(sql)));
    };
    const ids = Array.from({ length: rows }, () => ({ contact: newId('con'), lead: newId('lead') }));
    const array = (values: string[]) => `"{${values.join(',')}}"`;
    await copy('copy contacts (org_id, id, name, phones, emails, company, created_at, updated_at) from stdin (format csv)', (i) => {
      const r = row(i, ws.memberId);
      return `${ws.orgId},${ids[i]!.contact},${r.name},${array([r.phone, ...r.phones.split(';')])},${array([r.email, r.emails])},${r.company},now,now\n`;
    });
    // The lead's copies of its contact's search text are columns of the lead (not null): made here
    // in JS, about as long as contact_search_text's, so the COPY writes what the import's rows hold.
    await copy('copy leads (org_id, id, contact_id, status, source, notes, next_call_at, assigned_to_id, created_at, updated_at, external_id, contact_search_lower, contact_phone_digits) from stdin (format csv)', (i) => {
      const r = row(i, ws.memberId);
      const phones = [r.phone, ...r.phones.split(';')];
      const search = [r.name, r.company, r.email, r.emails, ...phones].join(' ').toLowerCase();
      return `${ws.orgId},${ids[i]!.lead},${ids[i]!.contact},${r.status},${r.source},${r.notes},${r.nextCallAt},${r.assignedToId},now,now,${r.externalId},${search},${phones.map((p) => p.replace(/\D/g, '')).join(' ')}\n`;
    });
  } finally {
    await db.client.releaseConnection(connection);
  }
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const entry = buildService();
  const lines: string[] = [machineLine(await postgresVersion(db)), '', '| case | rows | seconds | rows/s | peak RSS |', '|---|---|---|---|---|'];
  const env = { ...serviceEnv(url, 'warn'), WEBHOOK_WORKER_IN_PROCESS: 'false' };
  await withServer('ours', serviceArgs(entry), env, async (api) => {
    // leads.create at 50 connections.
    const creates = await newWorkspace(db, 'creates');
    process.stderr.write('leads.create at 50 connections\n');
    const bodies = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ json: { name: `Bench create ${runTag} ${i}`, phone: `+4476${String(i).padStart(8, '0')}` } }));
    const created = await runCannon({
      url: `${api.baseUrl}/api/v1/rpc/leads.create`, method: 'POST', headers: { 'content-type': 'application/json', Authorization: `Bearer ${creates.key}` },
      bodies, connections: 50, warmupSeconds: 1, seconds: SECONDS,
    }, api.pid);
    lines.push(`| leads.create, 50 connections | ${created.requests} | ${SECONDS} | ${Math.round(created.rps)} | |`);

    const target = await newWorkspace(db, 'import');
    const file = await writeCsv(`rows-${ROWS}.csv`, target.memberId, { rows: ROWS });
    process.stderr.write(`import of ${ROWS} rows\n`);
    const workerProcess = await startWorker(env, target.orgId);
    try {
      const imported = await importFile(api.baseUrl, workerProcess.pid, target, file.path);
      lines.push(`| import, CSV with every field, into an empty workspace (${imported.status}) | ${ROWS} | ${imported.seconds.toFixed(1)} | ${Math.round(ROWS / imported.seconds)} | worker ${imported.workerRssMb} MB |`);
      const copyWs = await newWorkspace(db, 'copy');
      const copySeconds = await copyRows(db, copyWs, ROWS);
      lines.push(`| COPY FROM STDIN into contacts and leads, no derived rows | ${ROWS} | ${copySeconds.toFixed(1)} | ${Math.round(ROWS / copySeconds)} | |`);
      lines.push('', `Import / leads.create: ${(ROWS / imported.seconds / created.rps).toFixed(1)}x (target >= 10x); import / COPY: ${(copySeconds / imported.seconds).toFixed(2)}x (target >= 0.25x)`);
    } finally {
      await workerProcess.stop();
    }

    const big = await newWorkspace(db, 'big');
    const bigFile = await writeCsv(`size-${SIZE_MB}mb.csv`, big.memberId, { bytes: SIZE_MB * 1024 * 1024 });
    process.stderr.write(`import of a ${SIZE_MB} MB file (${bigFile.rows} rows)\n`);
    const bigWorker = await startWorker(env, big.orgId);
    try {
      const apiRss = sampleRss(api.pid, 100);
      const imported = await importFile(api.baseUrl, bigWorker.pid, big, bigFile.path);
      lines.push('', `| ${(statSync(bigFile.path).size / 1024 / 1024).toFixed(0)} MB file (${imported.status}) | ${bigFile.rows} | ${imported.seconds.toFixed(1)} | ${Math.round(bigFile.rows / imported.seconds)} | worker ${imported.workerRssMb} MB, API ${apiRss.stop()} MB |`);
    } finally {
      await bigWorker.stop();
    }
  });
  await db.destroy();
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `npm run worker` (compiled) for one workspace's imports; startServer waits for a port, which a worker has none of. */
async function startWorker(env: Record<string, string>, orgId: string): Promise<{ pid: number; stop(): Promise<void> }> {
  const { spawn } = await import('node:child_process');
  const entry = resolve(__dirname, '..', '.tmp', 'bench-dist', 'src', 'webhooks', 'worker-main.js');
  const child = spawn(process.execPath, [entry], { env: { ...process.env, ...env, IMPORT_WORKER_ORG_IDS: orgId, IMPORT_POLL_MS: '50' }, stdio: 'ignore' });
  // Ready once its pool has connected (its connections carry its application_name): its start is not timed.
  const db = await openBenchDatabase(url);
  try {
    for (let tries = 0; tries < 300; tries++) {
      const { rows } = await db.raw("select count(*)::int as n from pg_stat_activity where application_name = 'workspace-api-worker'");
      if (rows[0].n > 0) break;
      await new Promise((done) => setTimeout(done, 100));
    }
  } finally {
    await db.destroy();
  }
  return {
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
