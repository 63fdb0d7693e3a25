import { randomBytes } from 'node:crypto';
import { openBenchDatabase, postgresVersion } from './lib/dataset';
import { machineLine } from './lib/report';
import type { Db } from '../src/db/knex';
import * as orgsQueries from '../src/db/orgs';
import { issueApiKey } from '../src/auth/api-keys';
import { KNOWN_SCOPES } from '../src/auth/scopes';
import { newId } from '../src/domain/ids';
import { EVENT_READ_SCOPES } from '../src/events/event-types';
import * as redeliveryQueries from '../src/db/webhooks/redelivery';
import * as deliveriesQueries from '../src/db/webhooks/deliveries';

// `npx tsx bench/webhook-redelivery.ts [events]` (1,000,000 by default): what a range redelivery
// of that many events costs to queue (webhooks.redeliver's statement, once for events that never
// had a delivery, once again for the same, now existing, deliveries), and what one claiming turn
// of the worker costs with them all pending, beside the GROUP BY it replaced. Its own database
// (BENCH_DATABASE_URL, default wsapi_bench_redelivery on the local PostgreSQL).
const events = Number(process.argv[2] ?? 1_000_000);
const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/wsapi_bench_redelivery';

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  console.log(`${label}: ${Math.round(performance.now() - started)} ms`);
  return result;
}

async function workspace(db: Db, name: string) {
  await db('organisations').where({ name }).delete();
  const org = await orgsQueries.create(db, { name, tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
  const key = await issueApiKey(db, KNOWN_SCOPES, { orgId: org.id, name: 'bench', scopes: [...KNOWN_SCOPES] });
  const endpointId = newId('wh');
  await db('webhook_endpoints').insert({
    org_id: org.id, id: endpointId, url: 'http://127.0.0.1:9/hooks', events: ['*'], secret: `whsec_${randomBytes(16).toString('hex')}`,
    owner_kind: 'apiKey', owner_id: key.id, read_scopes: [...EVENT_READ_SCOPES],
  });
  return { orgId: org.id, keyId: key.id, endpointId };
}

async function main(): Promise<void> {
  const db = await openBenchDatabase(url);
  console.log(machineLine(await postgresVersion(db)));
  console.log(`autovacuum: ${(await db.raw('show autovacuum')).rows[0].autovacuum}`);
  const a = await workspace(db, 'bench redelivery');
  await timed(`insert ${events} events (setup)`, () => db.raw(
    `insert into events (org_id, id, type, actor_kind, actor_id, object_id, data)
     select ?, 'evt_' || md5(random()::text || g), 'lead.created', 'apiKey', ?, 'lead_bench' || g,
       jsonb_build_object('object', jsonb_build_object('id', 'lead_bench' || g, 'name', 'Bench Lead ' || g))
     from generate_series(1, ?) g`,
    [a.orgId, a.keyId, events],
  ));
  await db.raw('analyze events');
  const since = new Date(Date.now() - 3_600_000);
  const queued = await timed('redeliver since (no deliveries yet: inserts)', () => redeliveryQueries.queueEventsSince(db, a.orgId, a.endpointId, since, ['lead.created']));
  console.log(`queued ${queued}`);
  await db.raw('analyze webhook_deliveries');
  const others = [];
  for (let i = 0; i < 20; i++) others.push(await workspace(db, `bench redelivery other ${i}`));
  const orgIds = [a.orgId, ...others.map((o) => o.orgId)];
  for (let i = 0; i < 3; i++) {
    await timed(`old turn: GROUP BY over the due rows`, () => db.raw(
      `select org_id from webhook_deliveries
       where status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now()) and org_id = any(?::text[])
       group by org_id order by min(next_attempt_at) limit 8`,
      [orgIds],
    ));
  }
  for (let i = 0; i < 3; i++) {
    const claims = await timed(`new turn: claimDue (limit 8, one probe per workspace)`, () => deliveriesQueries.claimDue(db, { limit: 8, leaseMs: 60_000, orgIds }));
    console.log(`  claimed ${claims.length}`);
  }
  const again = await timed('redeliver since again (existing deliveries: updates)', () => redeliveryQueries.queueEventsSince(db, a.orgId, a.endpointId, since, ['lead.created']));
  console.log(`queued ${again}`);
  await db('organisations').whereIn('id', orgIds).delete();
  await db.destroy();
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
