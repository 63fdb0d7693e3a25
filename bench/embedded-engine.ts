/**
 * The embedded default as a newcomer meets it: `npm start` on an empty EMBEDDED_DB_DIR, timed to
 * its first answer, then getById and the REST list's first page under load. Engine-agnostic, so
 * the same script measured PGlite (before) and embedded PostgreSQL (after); docs/decisions.md
 * keeps both runs' figures.
 *
 *   npx tsx bench/embedded-engine.ts [--seconds 10] [--connections 10]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer, runCannon } from './lib/processes';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wsapi-engine-bench-'));
  const started = performance.now();
  const server = await startServer('embedded', ['--import', 'tsx', 'src/index.ts'], { EMBEDDED_DB_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: '', RATE_LIMIT_PER_MINUTE: '0' });
  try {
    const key = readFileSync(join(dataDir, 'demo-key.txt'), 'utf8').trim();
    const headers = { authorization: `Bearer ${key}` };
    const list = await fetch(`${server.baseUrl}/api/v1/leads?pageSize=1`, { headers });
    const firstAnswerSeconds = (performance.now() - started) / 1000;
    const leadId = ((await list.json()) as { data: { id: string }[] }).data[0]!.id;
    const getById = `${server.baseUrl}/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: leadId } }))}`;
    const job = { headers, connections, warmupSeconds: 2, seconds };
    const byId = await runCannon({ ...job, url: getById }, server.pid);
    const firstPage = await runCannon({ ...job, url: `${server.baseUrl}/api/v1/leads?pageSize=20` }, server.pid);
    const line = (name: string, r: typeof byId) => `${name.padEnd(22)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  non-2xx ${r.non2xx}`;
    process.stdout.write(
      [
        `first start to first answer: ${firstAnswerSeconds.toFixed(1)} s (empty data directory, migrations, demo data)`,
        line('leads.getById', byId),
        line('GET /api/v1/leads p.1', firstPage),
        `(${connections} connections, ${seconds} s each)`,
      ].join('\n') + '\n',
    );
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
