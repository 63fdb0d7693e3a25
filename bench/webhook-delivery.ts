import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openBenchDatabase, DEFAULT_BENCH_URL, postgresVersion } from './lib/dataset';
import { startServer, buildService, runCannon, serviceEnv, serviceArgs } from './lib/processes';
import { machineLine } from './lib/report';
import { createDb, type Db } from '../src/db/knex';
import * as orgsQueries from '../src/db/orgs';
import { issueApiKey } from '../src/auth/api-keys';
import { KNOWN_SCOPES } from '../src/auth/scopes';
import { newId } from '../src/domain/ids';
import { EVENT_READ_SCOPES } from '../src/events/event-types';
import { createLogger } from '../src/logger';
import { createDeliveryWorker } from '../src/webhooks/delivery-worker';

// `npx tsx bench/webhook-delivery.ts [--quick]`: (1) one worker's delivery rate against a local
// receiver answering 200 at once, from a backlog prepared with set-based SQL; (2) what the outbox
// costs leads.create: its rate through the HTTP app with 0 and with 3 subscribed endpoints.
const quick = process.argv.includes('--quick');
const BACKLOG = quick ? 1000 : 5000;
const CREATE_SECONDS = quick ? 3 : 10;
const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_BENCH_URL;

/** The receiver runs in its own process, so it never shares the worker's event loop. */
async function startReceiver(): Promise<{ url: string; stop(): void }> {
  const code = `require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); })
    .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk) => resolve(String(chunk).trim())));
  return { url: `http://127.0.0.1:${port}/hooks`, stop: () => child.kill('SIGKILL') };
}

/** A fresh workspace (an earlier run's, with its events and deliveries, is dropped) and an every-scope key. */
async function freshWorkspace(db: Db, name: string) {
  await db('organisations').where({ name }).delete();
  const org = await orgsQueries.create(db, { name, tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
  const key = await issueApiKey(db, KNOWN_SCOPES, { orgId: org.id, name: 'bench', scopes: [...KNOWN_SCOPES] });
  return { orgId: org.id, keyId: key.id, key: key.key };
}

async function addEndpoint(db: Db, orgId: string, keyId: string, target: string): Promise<string> {
  const id = newId('wh');
  await db('webhook_endpoints').insert({
    org_id: orgId, id, url: target, events: ['*'], secret: `whsec_${randomBytes(16).toString('hex')}`,
    owner_kind: 'apiKey', owner_id: keyId, read_scopes: [...EVENT_READ_SCOPES],
  });
  return id;
}

/** `n` lead.created events (a lead-sized object each) and one pending delivery of each, in one statement. */
async function prepareBacklog(db: Db, orgId: string, keyId: string, endpointId: string, n: number): Promise<void> {
  await db.raw(
    `with ev as (
       insert into events (org_id, id, type, actor_kind, actor_id, object_id, data)
       select ?, 'evt_' || replace(gen_random_uuid()::text, '-', ''), 'lead.created', 'apiKey', ?, 'lead_bench' || g,
         jsonb_build_object('object', jsonb_build_object(
           'id', 'lead_bench' || g, 'name', 'Bench Lead ' || g, 'phones', jsonb_build_array('+44740000' || lpad(g::text, 4, '0')),
           'emails', jsonb_build_array('lead' || g || '@example.com'), 'company', 'Example Ltd', 'status', 'NOT_CONTACTED',
           'source', 'bench', 'notes', repeat('n', 200), 'nextCallAt', null, 'assignedToId', null, 'clientId', null,
           'createdAt', now(), 'updatedAt', now()))
       from generate_series(1, ?) g
       returning org_id, id, seq, object_id
     )
     insert into webhook_deliveries (org_id, id, endpoint_id, event_id, event_seq, object_id)
     select org_id, 'dlv_' || replace(gen_random_uuid()::text, '-', ''), ?, id, seq, object_id from ev`,
    [orgId, keyId, n, endpointId],
  );
}

async function deliveryRate(db: Db, concurrency: number): Promise<{ concurrency: number; perSecond: number; seconds: number }> {
  const receiver = await startReceiver();
  const ws = await freshWorkspace(db, `bench webhooks delivery c${concurrency}`);
  const endpointId = await addEndpoint(db, ws.orgId, ws.keyId, receiver.url);
  await prepareBacklog(db, ws.orgId, ws.keyId, endpointId, BACKLOG);
  // As after any bulk load: without statistics the planner takes the fresh rows for a handful and
  // sorts every pending row at each claim instead of reading the due index in order.
  await db.raw('analyze webhook_deliveries');
  const pool = createDb({ url, poolMax: 10 });
  const worker = createDeliveryWorker({
    db: pool, logger: createLogger('warn'), policy: 'development', timeoutMs: 5000, leaseMs: 15_000, retryBaseMs: 60_000,
    maxAttempts: 14, disableAfterMs: 3 * 86_400_000, concurrency, pollMs: 500, orgIds: [ws.orgId],
  });
  const started = performance.now();
  worker.start();
  const pending = async () => Number((await db('webhook_deliveries').where({ org_id: ws.orgId, status: 'pending' }).count({ n: '*' }))[0]!.n);
  while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  await pool.destroy();
  receiver.stop();
  const failed = await db('webhook_deliveries').where({ org_id: ws.orgId }).whereNot({ status: 'succeeded' }).count({ n: '*' });
  if (Number(failed[0]!.n) > 0) throw new Error(`${failed[0]!.n} deliveries did not succeed`);
  return { concurrency, perSecond: Math.round(BACKLOG / seconds), seconds: Number(seconds.toFixed(2)) };
}

async function createRates(db: Db): Promise<{ endpoints: number; rps: number; p50: number; p99: number; deliveriesPerCreate: number }[]> {
  const receiver = await startReceiver();
  const plain = await freshWorkspace(db, 'bench webhooks outbox 0');
  const subscribed = await freshWorkspace(db, 'bench webhooks outbox 3');
  for (let i = 0; i < 3; i++) await addEndpoint(db, subscribed.orgId, subscribed.keyId, receiver.url);
  // No worker delivers meanwhile (DATABASE_URL set: not in process): only the write's cost is measured.
  const env = serviceEnv(url, 'warn');
  const server = await startServer('ours', serviceArgs(buildService()), env);
  const rows = [];
  try {
    // Alternated twice, so neither side is always measured on the larger tables.
    for (const ws of [plain, subscribed, plain, subscribed]) {
      const endpoints = ws === plain ? 0 : 3;
      const tag = randomBytes(3).toString('hex');
      const bodies = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ json: { name: `Bench ${tag}-${i}`, phone: `+447400${String(i).padStart(6, '0')}` } }));
      const count = async (table: string) => Number((await db(table).where({ org_id: ws.orgId }).count({ n: '*' }))[0]!.n);
      const before = { deliveries: await count('webhook_deliveries'), leads: await count('leads') };
      const result = await runCannon({
        url: `${server.baseUrl}/api/v1/rpc/leads.create`, method: 'POST', headers: { 'content-type': 'application/json', Authorization: `Bearer ${ws.key}` },
        bodies, connections: 10, warmupSeconds: 2, seconds: CREATE_SECONDS,
      }, server.pid);
      const created = (await count('leads')) - before.leads;
      const deliveries = (await count('webhook_deliveries')) - before.deliveries;
      rows.push({ endpoints, rps: result.rps, p50: result.p50, p99: result.p99, deliveriesPerCreate: created ? Number((deliveries / created).toFixed(1)) : 0 });
    }
  } finally {
    await server.stop();
    receiver.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  const pgVersion = await postgresVersion(db);
  process.stderr.write(`delivering a backlog of ${BACKLOG}\n`);
  const deliveries = [await deliveryRate(db, 8), await deliveryRate(db, 32)];
  process.stderr.write('measuring leads.create with 0 and 3 endpoints\n');
  const creates = await createRates(db);
  await db.destroy();

  const lines = [
    `Webhook delivery bench, ${new Date().toISOString().slice(0, 10)}: ${machineLine(pgVersion)}`,
    '',
    `| one worker, ${BACKLOG} pending deliveries, receiver answers 200 at once | deliveries/s | seconds |`,
    '|---|---:|---:|',
    ...deliveries.map((d) => `| WEBHOOK_WORKER_CONCURRENCY=${d.concurrency}${d.concurrency === 8 ? ' (default)' : ''} | ${d.perSecond} | ${d.seconds} |`),
    '',
    `| leads.create, 10 connections, ${CREATE_SECONDS} s | req/s | p50 ms | p99 ms | delivery rows per create |`,
    '|---|---:|---:|---:|---:|',
    ...creates.map((c) => `| ${c.endpoints} subscribed endpoints | ${c.rps} | ${c.p50.toFixed(1)} | ${c.p99.toFixed(1)} | ${c.deliveriesPerCreate} |`),
  ];
  console.log(lines.join('\n'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
