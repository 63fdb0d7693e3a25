import { failsAfterEvent } from '../helpers/failing-write';
import { createTestContext, createTestDb } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { until } from '../helpers/poll';
import { deliveriesOf, insertEndpoint, startReceiver, startTestWorker, type Receiver } from '../helpers/webhook-fixtures';
import { createRegistry } from '../../src/rpc/registry';
import { procedures } from '../../src/procedures';
import { startEventsRetention } from '../../src/events/retention';
import * as apiKeysQueries from '../../src/db/api-keys';
import { createLogger } from '../../src/logger';
import { verifyWebhookSignature } from '../../packages/client/src';
import type { DeliveryWorker } from '../../src/webhooks/delivery-worker';

// The embedded database has one session: the app and the worker share one connection there.
const ctx = createTestContext({ db: createTestDb(5), registry: createRegistry([...procedures, failsAfterEvent]) });
let worker: DeliveryWorker | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await worker?.stop();
  await receiver?.close();
  worker = receiver = undefined;
});
afterAll(() => ctx.close());

async function call(key: string, name: string, input: unknown) {
  const res = await rpcPost(ctx.app, name, input, key);
  if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.text}`);
  return resultOf(res);
}

const createLead = (key: string, name = 'Ada Lovelace') => call(key, 'leads.create', { name, phone: '+442079460018' });

describe('webhook delivery', () => {
  it('POSTs each event of a write as plain JSON, signed with the endpoint secret, with its id and type in headers', async () => {
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url });
    worker = startTestWorker(ctx.db, [ws.org.id]);
    const lead = await createLead(ws.key);

    const settled = async () => (await deliveriesOf(ctx.db, ws.org.id)).filter((d) => d.status === 'succeeded').length === 2;
    expect(await until(settled, 10_000)).toBe(true);
    expect(receiver.acknowledged).toHaveLength(2);
    const stored = await ctx.db('events').where({ org_id: ws.org.id }).orderBy('seq').select();
    // Two objects' events: the worker may send them side by side, in either order.
    expect(receiver.requests.map((r) => r.eventType).sort()).toEqual(['contact.created', 'lead.created']);
    for (const request of receiver.requests) {
      const event = stored.find((e) => e.id === request.headers['workspace-event-id'])!;
      expect(JSON.parse(request.body)).toEqual({
        id: event.id,
        type: event.type,
        createdAt: event.created_at.toISOString(),
        orgId: ws.org.id,
        actor: { kind: 'apiKey', id: ws.keyId },
        data: event.data,
      });
      expect(request.headers).toMatchObject({
        'content-type': 'application/json',
        'user-agent': 'WorkspaceAPI-Webhooks/1',
        'workspace-event-id': event.id,
        'workspace-event-type': event.type,
      });
      const header = String(request.headers['workspace-signature']);
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(await verifyWebhookSignature({ payload: request.body, header, secret: endpoint.secret })).toBe(true);
      expect(await verifyWebhookSignature({ payload: request.body, header, secret: 'whsec_someoneelse' })).toBe(false);
    }
    const leadCreated = receiver.requests.find((r) => r.eventType === 'lead.created')!;
    expect(JSON.parse(leadCreated.body).data.object).toMatchObject({ id: lead.id, name: 'Ada Lovelace' });
    const deliveries = await deliveriesOf(ctx.db, ws.org.id);
    expect(deliveries.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    expect(deliveries.every((d) => d.completed_at !== null && d.claim_token === null)).toBe(true);
  });

  it('retries a receiver that fails twice: one acknowledged delivery after two retries, three attempts recorded', async () => {
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver((_request, nth) => (nth === 1 ? { status: 500, body: 'down' } : nth === 2 ? { status: 503 } : { status: 200, body: 'thanks' }));
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created'] });
    worker = startTestWorker(ctx.db, [ws.org.id]);
    await createLead(ws.key);

    expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id))[0]?.status === 'succeeded', 10_000)).toBe(true);
    const [delivery] = await deliveriesOf(ctx.db, ws.org.id);
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((r) => r.eventId)).size).toBe(1);
    expect(receiver.acknowledged).toEqual([delivery!.event_id]);
    expect(delivery!.attempts).toBe(3);
    expect(delivery!.attemptRows.map((a) => [a.attempt, a.status_code, a.error])).toEqual([[1, 500, null], [2, 503, null], [3, 200, null]]);
    expect(delivery!.attemptRows.map((a) => a.response_excerpt)).toEqual(['down', 'ok', 'thanks']);
    // The streak the failures started ended with the success.
    expect((await ctx.db('webhook_endpoints').where({ org_id: ws.org.id, id: endpoint.id }).first('failing_since')).failing_since).toBeNull();
  });

  it('records no event and no delivery for a write that rolls back', async () => {
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver();
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.updated'] });
    const lead = await createLead(ws.key);
    worker = startTestWorker(ctx.db, [ws.org.id]);

    // Refused by a check inside its transaction (a stale expectedUpdatedAt)...
    const stale = await rpcPost(ctx.app, 'leads.update', { id: lead.id, notes: 'late', expectedUpdatedAt: new Date(lead.updatedAt.getTime() - 1000) }, ws.key);
    expect(stale.status).toBe(409);
    // ...and failing after its event was recorded.
    expect((await rpcPost(ctx.app, 'testing.failAfterEvent', { id: lead.id }, ws.key)).status).toBe(500);
    // A write that commits afterwards is delivered: the worker was running all along.
    await call(ws.key, 'leads.update', { id: lead.id, notes: 'kept' });

    expect(await until(() => receiver!.acknowledged.length === 1, 10_000)).toBe(true);
    const events = await ctx.db('events').where({ org_id: ws.org.id, type: 'lead.updated' }).select('id', 'data');
    expect(events).toHaveLength(1);
    expect(events[0]!.data.object.notes).toBe('kept');
    expect((await deliveriesOf(ctx.db, ws.org.id)).map((d) => d.event_id)).toEqual([events[0]!.id]);
    expect(receiver.requests.map((r) => r.eventId)).toEqual([events[0]!.id]);
  });

  it('gives up after the maximum attempts, waiting longer before each retry', async () => {
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver(() => ({ status: 500 }));
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created'] });
    worker = startTestWorker(ctx.db, [ws.org.id], { maxAttempts: 3, retryBaseMs: 50 });
    await createLead(ws.key);

    expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id))[0]?.status === 'failed', 10_000)).toBe(true);
    const [delivery] = await deliveriesOf(ctx.db, ws.org.id);
    expect(delivery!.attempts).toBe(3);
    expect(delivery!.attemptRows.map((a) => a.status_code)).toEqual([500, 500, 500]);
    expect(delivery!.completed_at).not.toBeNull();
    expect(receiver.requests).toHaveLength(3);
    // Each retry waited at least its backoff (base 50 ms doubling, jitter down to 0.8x): lower bounds only.
    const attempts = await ctx.db('webhook_delivery_attempts').where({ org_id: ws.org.id, delivery_id: delivery!.id }).orderBy('attempt').select('started_at', 'duration_ms');
    const gap = (i: number) => attempts[i]!.started_at.getTime() - (attempts[i - 1]!.started_at.getTime() + attempts[i - 1]!.duration_ms);
    expect(gap(1)).toBeGreaterThanOrEqual(0.8 * 50 - 2);
    expect(gap(2)).toBeGreaterThanOrEqual(0.8 * 100 - 2);
  });

  it('disables an endpoint failing for longer than WEBHOOK_DISABLE_AFTER_MS and records webhook.disabled', async () => {
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver(() => ({ status: 502 }));
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created'] });
    worker = startTestWorker(ctx.db, [ws.org.id], { disableAfterMs: 1, maxAttempts: 10 });
    await createLead(ws.key);

    const disabled = async () => (await ctx.db('webhook_endpoints').where({ org_id: ws.org.id, id: endpoint.id }).first('enabled')).enabled === false;
    expect(await until(disabled, 10_000)).toBe(true);
    const row = await ctx.db('webhook_endpoints').where({ org_id: ws.org.id, id: endpoint.id }).first('failing_since', 'disabled_reason');
    expect(row.disabled_reason).toBe(`Disabled automatically: every delivery attempt has failed since ${row.failing_since.toISOString()}`);
    const [event] = await ctx.db('events').where({ org_id: ws.org.id, type: 'webhook.disabled' }).select('actor_kind', 'actor_id', 'object_id', 'data');
    expect(event).toMatchObject({ actor_kind: 'system', actor_id: 'webhook-worker', object_id: endpoint.id });
    expect(event!.data.object).toMatchObject({ id: endpoint.id, enabled: false, disabledReason: row.disabled_reason });
    expect(event!.data.object).not.toHaveProperty('secret');
    // A disabled endpoint's deliveries wait: nothing more is sent to it.
    const sent = receiver.requests.length;
    await createLead(ws.key, 'Grace Hopper');
    await until(() => receiver!.requests.length > sent, 300);
    expect(receiver.requests).toHaveLength(sent);
    expect((await deliveriesOf(ctx.db, ws.org.id)).every((d) => d.status === 'pending')).toBe(true);
  });

  it('sends nothing for an endpoint whose owner key was revoked: the delivery fails saying why', async () => {
    const ws = await createWorkspace(ctx.db);
    const owner = await createKey(ctx.db, ws.org.id);
    receiver = await startReceiver();
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: owner.id, url: receiver.url, events: ['lead.created'] });
    await apiKeysQueries.revokeInOrg(ctx.db, ws.org.id, owner.id);
    worker = startTestWorker(ctx.db, [ws.org.id]);
    await createLead(ws.key);

    expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id))[0]?.status === 'failed', 10_000)).toBe(true);
    const [delivery] = await deliveriesOf(ctx.db, ws.org.id);
    expect(delivery!.attemptRows).toEqual([
      expect.objectContaining({ attempt: 1, status_code: null, error: `not sent: the endpoint's owner API key ${owner.id} was revoked` }),
    ]);
    expect(receiver.requests).toHaveLength(0);
  });

  it("delivers one lead's events in order even when the first needs a retry", async () => {
    const ws = await createWorkspace(ctx.db);
    let failedOnce = false;
    receiver = await startReceiver((request) => {
      if (request.eventType === 'lead.created' && !failedOnce) {
        failedOnce = true;
        return { status: 500 };
      }
      return { status: 200 };
    });
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created', 'lead.updated'] });
    // Both deliveries are pending before the worker starts, so the second is due while the first waits for its retry.
    const lead = await createLead(ws.key);
    await call(ws.key, 'leads.update', { id: lead.id, notes: 'second' });
    worker = startTestWorker(ctx.db, [ws.org.id], { retryBaseMs: 100 });

    expect(await until(() => receiver!.acknowledged.length === 2, 10_000)).toBe(true);
    expect(receiver.requests.map((r) => r.eventType)).toEqual(['lead.created', 'lead.created', 'lead.updated']);
    const types = new Map(receiver.requests.map((r) => [r.eventId, r.eventType]));
    expect(receiver.acknowledged.map((id) => types.get(id))).toEqual(['lead.created', 'lead.updated']);
  });
});

describe('events retention', () => {
  it('purges events older than the retention with their deliveries and attempts, at start', async () => {
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created'] });
    await createLead(ws.key, 'Old');
    await createLead(ws.key, 'Recent');
    const [old, recent] = await ctx.db('events').where({ org_id: ws.org.id, type: 'lead.created' }).orderBy('seq').select('id');
    // Far older than any other test's events, so the purge only meets these.
    await ctx.db('events').where({ org_id: ws.org.id, id: old!.id }).update({ created_at: ctx.db.raw("now() - interval '1001 days'") });
    await ctx.db('events').where({ org_id: ws.org.id, id: recent!.id }).update({ created_at: ctx.db.raw("now() - interval '999 days'") });
    const oldDelivery = await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, event_id: old!.id }).first('id');
    await ctx.db('webhook_delivery_attempts').insert({ org_id: ws.org.id, delivery_id: oldDelivery.id, attempt: 1, started_at: new Date(), duration_ms: 1, status_code: 500 });

    const retention = startEventsRetention({ db: ctx.db, logger: createLogger('silent'), retentionDays: 1000, batchSize: 1 });
    const gone = async () => (await ctx.db('events').where({ org_id: ws.org.id, id: old!.id })).length === 0;
    expect(await until(gone, 10_000)).toBe(true);
    await retention.stop();

    expect(await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, event_id: old!.id })).toHaveLength(0);
    expect(await ctx.db('webhook_delivery_attempts').where({ org_id: ws.org.id, delivery_id: oldDelivery.id })).toHaveLength(0);
    expect(await ctx.db('events').where({ org_id: ws.org.id, id: recent!.id })).toHaveLength(1);
    expect(await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, endpoint_id: endpoint.id, event_id: recent!.id })).toHaveLength(1);
  });

  it("also deletes the endpoints' hourly figures no read needs: older than a day and not the endpoint's latest", async () => {
    const ws = await createWorkspace(ctx.db);
    const busy = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'https://hooks.example.com/busy' });
    const idle = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'https://hooks.example.com/idle' });
    const hoursAgo = (n: number) => new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - n * 3_600_000);
    const hour = (endpointId: string, ago: number, attempts: number, statusCode: number) => ({
      org_id: ws.org.id, endpoint_id: endpointId, hour: hoursAgo(ago), attempts, succeeded: statusCode < 300 ? attempts : 0,
      last_attempt_at: hoursAgo(ago), last_status_code: statusCode, last_succeeded: statusCode < 300,
    });
    await ctx.db('webhook_endpoint_hours').insert([
      hour(busy.id, 50, 5, 500), hour(busy.id, 30, 2, 500), hour(busy.id, 2, 3, 200),
      // An endpoint last called three days ago: its latest row still says when, and how it went.
      hour(idle.id, 80, 1, 200), hour(idle.id, 72, 4, 410),
    ]);

    const retention = startEventsRetention({ db: ctx.db, logger: createLogger('silent'), retentionDays: 1000 });
    const kept = async () => (await ctx.db('webhook_endpoint_hours').where({ org_id: ws.org.id })).length === 2;
    expect(await until(kept, 10_000)).toBe(true);
    await retention.stop();

    const rows = await ctx.db('webhook_endpoint_hours').where({ org_id: ws.org.id }).orderBy('endpoint_id').select('endpoint_id', 'hour');
    expect(rows.map((r) => [r.endpoint_id, r.hour.getTime()]).sort()).toEqual([[busy.id, hoursAgo(2).getTime()], [idle.id, hoursAgo(72).getTime()]].sort());
    const shown = async (id: string) => resultOf(await rpcGet(ctx.app, 'webhooks.getById', { id }, ws.key)).deliveryStats;
    expect(await shown(busy.id)).toEqual({ lastAttemptAt: hoursAgo(2), lastStatus: 'succeeded', lastStatusCode: 200, attempts24h: 3, successRate24h: 1 });
    expect(await shown(idle.id)).toEqual({ lastAttemptAt: hoursAgo(72), lastStatus: 'failed', lastStatusCode: 410, attempts24h: 0, successRate24h: null });
  });
});
