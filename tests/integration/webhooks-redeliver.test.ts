import { createTestContext, createTestDb } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { until } from '../helpers/poll';
import { memoryLimiter } from '../helpers/rate-limit';
import { deliveriesOf, insertEndpoint, startReceiver, startTestWorker, type Receiver } from '../helpers/webhook-fixtures';
import { verifyWebhookSignature } from '../../packages/client/src';
import type { DeliveryWorker } from '../../src/webhooks/delivery-worker';

// The embedded database has one session: the app and the worker share one connection there.
const ctx = createTestContext({ db: createTestDb(5) });
let worker: DeliveryWorker | undefined;
const receivers: Receiver[] = [];
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => ctx.close());

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

async function call(key: string, name: string, input: unknown) {
  const res = await rpcPost(ctx.app, name, input, key);
  if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.text}`);
  return resultOf(res);
}

const redeliver = (key: string, input: unknown, app = ctx.app) => rpcPost(app, 'webhooks.redeliver', input, key);
const createLead = (key: string, name = 'Ada Lovelace') => call(key, 'leads.create', { name, phone: '+442079460018' });
const eventsOf = (orgId: string, type: string) => ctx.db('events').where({ org_id: orgId, type }).orderBy('seq').select('id', 'created_at');
const deliveryRows = (orgId: string) => ctx.db('webhook_deliveries').where({ org_id: orgId }).orderBy('id').select();

describe('POST webhooks.redeliver', () => {
  it('sends a given-up delivery again: same event id, a fresh valid signature, new attempts in getDeliveries and the endpoint figures', async () => {
    const ws = await createWorkspace(ctx.db);
    let up = false;
    const hooks = await receiver(() => (up ? { status: 200, body: 'thanks' } : { status: 500, body: 'down' }));
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: hooks.url, events: ['lead.created'] });
    worker = startTestWorker(ctx.db, [ws.org.id], { maxAttempts: 2, retryBaseMs: 20 });
    await createLead(ws.key);
    expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id))[0]?.status === 'failed', 10_000)).toBe(true);
    const [event] = await eventsOf(ws.org.id, 'lead.created');

    up = true;
    const queuedAt = Math.floor(Date.now() / 1000);
    expect(resultOf(await redeliver(ws.key, { id: endpoint.id, eventIds: [event!.id] }))).toEqual({ queued: 1 });
    expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id))[0]?.status === 'succeeded', 10_000)).toBe(true);

    expect(hooks.requests.map((r) => r.eventId)).toEqual([event!.id, event!.id, event!.id]);
    const last = hooks.requests[2]!;
    const header = String(last.headers['workspace-signature']);
    expect(Number(/^t=(\d+)/.exec(header)![1])).toBeGreaterThanOrEqual(queuedAt);
    expect(await verifyWebhookSignature({ payload: last.body, header, secret: endpoint.secret })).toBe(true);
    expect(JSON.parse(last.body).id).toBe(event!.id);

    const page = resultOf(await rpcGet(ctx.app, 'webhooks.getDeliveries', { id: endpoint.id }, ws.key));
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ eventId: event!.id, status: 'succeeded', nextAttemptAt: null });
    expect(page.data[0].attempts.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode])).toEqual([[1, 500], [2, 500], [3, 200]]);

    const shown = resultOf(await rpcGet(ctx.app, 'webhooks.getById', { id: endpoint.id }, ws.key));
    expect(shown.deliveryStats).toEqual({ lastAttemptAt: expect.any(Date), lastStatus: 'succeeded', lastStatusCode: 200, attempts24h: 3, successRate24h: 1 / 3 });
    const listed = resultOf(await rpcGet(ctx.app, 'webhooks.getAll', {}, ws.key));
    expect(listed.data[0].deliveryStats).toEqual(shown.deliveryStats);
    // Kept by the hour: three attempts, one row.
    expect(await ctx.db('webhook_endpoint_hours').where({ org_id: ws.org.id })).toHaveLength(1);
  });

  it('gives a redelivered delivery a fresh retry budget: maxAttempts more attempts, numbered on', async () => {
    const ws = await createWorkspace(ctx.db);
    const hooks = await receiver(() => ({ status: 503 }));
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: hooks.url, events: ['lead.created'] });
    worker = startTestWorker(ctx.db, [ws.org.id], { maxAttempts: 2, retryBaseMs: 20 });
    await createLead(ws.key);
    expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id))[0]?.status === 'failed', 10_000)).toBe(true);
    const [event] = await eventsOf(ws.org.id, 'lead.created');
    expect(resultOf(await redeliver(ws.key, { id: endpoint.id, eventIds: [event!.id] }))).toEqual({ queued: 1 });
    expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id))[0]?.attempts === 4, 10_000)).toBe(true);
    expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id))[0]?.status === 'failed', 10_000)).toBe(true);
    const [delivery] = await deliveriesOf(ctx.db, ws.org.id);
    expect(delivery!.attemptRows.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
    const shown = resultOf(await rpcGet(ctx.app, 'webhooks.getById', { id: endpoint.id }, ws.key));
    expect(shown.deliveryStats).toMatchObject({ lastStatus: 'failed', lastStatusCode: 503, attempts24h: 4, successRate24h: 0 });
  });

  it('by time: queues only events since then that the endpoint subscribes to and may read, even those never delivered (endpoint disabled then)', async () => {
    const ws = await createWorkspace(ctx.db);
    const hooks = await receiver();
    // Subscribed to lead.created and task.created, but keeping only leads.read: tasks are unreadable to it.
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: hooks.url, events: ['lead.created', 'task.created'], readScopes: ['leads.read'] });
    await call(ws.key, 'webhooks.update', { id: endpoint.id, enabled: false });
    await createLead(ws.key, 'Before Since');
    const [before] = await eventsOf(ws.org.id, 'lead.created');
    const since = new Date(before!.created_at.getTime() + 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const lead = await createLead(ws.key, 'After Since');
    await call(ws.key, 'tasks.create', { title: 'Call back', leadId: lead.id });
    expect(await deliveryRows(ws.org.id)).toEqual([]);

    // Disabled: refused, nothing queued.
    expectRpcFailure(await redeliver(ws.key, { id: endpoint.id, since }), 'CONFLICT', 'webhooks.redeliver');
    expect(await deliveryRows(ws.org.id)).toEqual([]);

    await call(ws.key, 'webhooks.update', { id: endpoint.id, enabled: true });
    expect(resultOf(await redeliver(ws.key, { id: endpoint.id, since }))).toEqual({ queued: 1 });
    worker = startTestWorker(ctx.db, [ws.org.id]);
    expect(await until(() => hooks.acknowledged.length === 1, 10_000)).toBe(true);
    const [, after] = await eventsOf(ws.org.id, 'lead.created');
    expect(hooks.requests.map((r) => [r.eventId, r.eventType])).toEqual([[after!.id, 'lead.created']]);
    expect(JSON.parse(hooks.requests[0]!.body).data.object.id).toBe(lead.id);
  });

  it("answers 404 naming another workspace's event id, and queues none of the list (all or nothing)", async () => {
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    const hooks = await receiver();
    const endpoint = await insertEndpoint(ctx.db, { orgId: a.org.id, ownerKeyId: a.keyId, url: hooks.url, events: ['lead.created'] });
    await call(a.key, 'webhooks.update', { id: endpoint.id, enabled: false });
    await createLead(a.key);
    await createLead(b.key);
    await call(a.key, 'webhooks.update', { id: endpoint.id, enabled: true });
    const [own] = await eventsOf(a.org.id, 'lead.created');
    const [foreign] = await eventsOf(b.org.id, 'lead.created');

    const failure = expectRpcFailure(await redeliver(a.key, { id: endpoint.id, eventIds: [own!.id, foreign!.id] }), 'NOT_FOUND', 'webhooks.redeliver');
    expect(failure.message).toContain(foreign!.id);
    expect(failure.message).toContain('nothing was queued');
    expect(await deliveryRows(a.org.id)).toEqual([]);
    expect(await deliveryRows(b.org.id)).toEqual([]);
    // Another workspace's endpoint is not found either.
    expectRpcFailure(await redeliver(b.key, { id: endpoint.id, eventIds: [foreign!.id] }), 'NOT_FOUND', 'webhooks.redeliver');
  });

  it('answers 422 naming an event of a type the endpoint may not read, or is not subscribed to; nothing queued', async () => {
    const ws = await createWorkspace(ctx.db);
    const hooks = await receiver();
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: hooks.url, events: ['*'], readScopes: ['contacts.read'] });
    await call(ws.key, 'webhooks.update', { id: endpoint.id, enabled: false });
    await createLead(ws.key);
    await call(ws.key, 'webhooks.update', { id: endpoint.id, enabled: true });
    const [contactEvent] = await eventsOf(ws.org.id, 'contact.created');
    const [leadEvent] = await eventsOf(ws.org.id, 'lead.created');

    const unreadable = expectRpcFailure(await redeliver(ws.key, { id: endpoint.id, eventIds: [contactEvent!.id, leadEvent!.id] }), 'UNPROCESSABLE_CONTENT', 'webhooks.redeliver');
    expect(unreadable.message).toContain(leadEvent!.id);
    expect(unreadable.message).toContain('leads.read');
    expect(await deliveryRows(ws.org.id)).toEqual([]);

    const narrow = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: hooks.url, events: ['lead.created'] });
    const unsubscribed = expectRpcFailure(await redeliver(ws.key, { id: narrow.id, eventIds: [contactEvent!.id] }), 'UNPROCESSABLE_CONTENT', 'webhooks.redeliver');
    expect(unsubscribed.message).toContain('not subscribed to contact.created');
    expect(await deliveryRows(ws.org.id)).toEqual([]);
    expect(hooks.requests).toHaveLength(0);
  });

  it('answers 400 unless exactly one of eventIds and since is given, and for more than 100 ids', async () => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'http://127.0.0.1:9/x' });
    for (const input of [{ id: endpoint.id }, { id: endpoint.id, eventIds: ['evt_x'], since: new Date() }, { id: endpoint.id, eventIds: [] },
      { id: endpoint.id, eventIds: Array.from({ length: 101 }, (_, i) => `evt_${i}`) }, { id: endpoint.id, since: 'yesterday' }]) {
      expect((await redeliver(ws.key, input)).status).toBe(400);
    }
    expect(issuePaths(await redeliver(ws.key, { id: endpoint.id, since: 'yesterday' }))).toEqual([['since']]);
    const readOnly = await createKey(ctx.db, ws.org.id, { scopes: ['webhooks.read'] });
    expectRpcFailure(await redeliver(readOnly.key, { id: endpoint.id, since: new Date() }), 'FORBIDDEN', 'webhooks.redeliver');
  });

  it("counts as 10 calls against the key's rate limit: the 7th within a minute of a 60-per-minute key is refused with 429", async () => {
    const limited = createTestContext({ rateLimiter: memoryLimiter({ perKey: 60 }) });
    try {
      const ws = await createWorkspace(limited.db);
      const endpoint = await insertEndpoint(limited.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'http://127.0.0.1:9/x' });
      for (let i = 0; i < 6; i++) expect((await redeliver(ws.key, { id: endpoint.id, since: new Date() }, limited.app)).status).toBe(200);
      expect((await redeliver(ws.key, { id: endpoint.id, since: new Date() }, limited.app)).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('queues a range of more than one chunk (10,000 events) exactly once each, across a change in the number of digits of seq', async () => {
    const events = 10_001;
    const ws = await createWorkspace(ctx.db);
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'http://127.0.0.1:9/x', events: ['lead.created'] });
    // One transaction's events numbered 99,995,000 on: the first chunk ends past 99,999,999, where text order would differ.
    await ctx.db.raw(
      `insert into events (org_id, id, type, actor_kind, actor_id, object_id, data, seq) overriding system value
       select ?, 'evt_chunk' || g || '_' || ?, 'lead.created', 'apiKey', ?, 'lead_chunk' || g, '{}'::jsonb, 99995000 + g from generate_series(0, ? - 1) g`,
      [ws.org.id, ws.org.id.slice(-6), ws.keyId, events],
    );
    expect(resultOf(await redeliver(ws.key, { id: endpoint.id, since: new Date(Date.now() - 60_000) }))).toEqual({ queued: events });
    const [rows] = await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, status: 'pending' }).count({ n: '*' });
    expect(Number(rows!.n)).toBe(events);
  }, 60_000);

  it("is fair: a workspace redelivering many events does not hold back another workspace's one delivery", async () => {
    const events = 300;
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    const hooksA = await receiver(() => ({ status: 200, delayMs: 5 }));
    const hooksB = await receiver();
    const endpointA = await insertEndpoint(ctx.db, { orgId: a.org.id, ownerKeyId: a.keyId, url: hooksA.url, events: ['lead.created'] });
    await insertEndpoint(ctx.db, { orgId: b.org.id, ownerKeyId: b.keyId, url: hooksB.url, events: ['lead.created'] });
    // Many past events of distinct objects in A, written straight (no delivery rows: as if before the endpoint).
    await ctx.db.raw(
      `insert into events (org_id, id, type, actor_kind, actor_id, object_id, data)
       select ?, 'evt_fair' || g || '_' || ?, 'lead.created', 'apiKey', ?, 'lead_fair' || g, '{}'::jsonb from generate_series(1, ?) g`,
      [a.org.id, a.org.id.slice(-6), a.keyId, events],
    );
    expect(resultOf(await redeliver(a.key, { id: endpointA.id, since: new Date(Date.now() - 60_000) }))).toEqual({ queued: events });
    worker = startTestWorker(ctx.db, [a.org.id, b.org.id], { concurrency: 4 });
    expect(await until(() => hooksA.requests.length >= 20, 10_000)).toBe(true);

    await createLead(b.key);
    expect(await until(() => hooksB.acknowledged.length === 1, 15_000)).toBe(true);
    // B's event went out while most of A's queue still waited (claimed earliest-workspace-first, it came after all of A's).
    expect(hooksA.requests.length).toBeLessThan(events / 2);
    const [pending] = await ctx.db('webhook_deliveries').where({ org_id: a.org.id, status: 'pending' }).count({ n: '*' });
    expect(Number(pending!.n)).toBeGreaterThan(events / 4);
  }, 60_000);
});
