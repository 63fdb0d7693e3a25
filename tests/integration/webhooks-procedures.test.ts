import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { EVENT_READ_SCOPES } from '../../src/events/event-types';
import { KNOWN_SCOPES } from '../../src/auth/scopes';
import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { EMBEDDED_IPV4_FORMS } from '../helpers/ssrf-forms';
import { TEST_JWT_SECRETS } from '../helpers/test-secrets';

const ctx = createTestContext();
afterAll(() => ctx.close());

const ENDPOINT_FIELDS = ['createdAt', 'description', 'disabledReason', 'enabled', 'events', 'failingSince', 'id', 'updatedAt', 'url'];
const URL = 'https://hooks.example.com/crm';

function create(key: string, input: unknown, app = ctx.app) {
  return rpcPost(app, 'webhooks.create', input, key);
}

async function createEndpoint(key: string, input: Record<string, unknown> = {}) {
  const res = await create(key, { url: URL, events: ['lead.created'], ...input });
  if (res.status !== 200) throw new Error(`webhooks.create answered ${res.status}: ${res.text}`);
  return resultOf(res);
}

function storedEndpoint(orgId: string, id: string) {
  return ctx.db('webhook_endpoints').where({ org_id: orgId, id }).first();
}

async function endpointCount(orgId: string): Promise<number> {
  const [row] = await ctx.db('webhook_endpoints').where({ org_id: orgId }).count({ n: '*' });
  return Number(row!.n);
}

describe('POST webhooks.create', () => {
  it('answers the endpoint and its whsec_ secret, and stores both with the caller as owner', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, { url: URL, events: ['lead.created', 'task.completed'], description: 'CRM sync' });
    expect(res.status).toBe(200);
    const created = resultOf(res);
    expect(Object.keys(created).sort()).toEqual([...ENDPOINT_FIELDS, 'secret'].sort());
    expect(created).toMatchObject({
      id: expect.stringMatching(/^wh_[0-9A-Za-z]{22}$/), url: URL, events: ['lead.created', 'task.completed'], description: 'CRM sync',
      enabled: true, disabledReason: null, failingSince: null, secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/),
    });
    expect(await storedEndpoint(ws.org.id, created.id)).toMatchObject({
      secret: created.secret, previous_secret: null, owner_kind: 'apiKey', owner_id: ws.keyId, read_scopes: [...EVENT_READ_SCOPES],
    });
  });

  it('drops repeated event types, keeping their first order', async () => {
    const ws = await createWorkspace(ctx.db);
    const created = await createEndpoint(ws.key, { events: ['task.created', 'lead.created', 'task.created'] });
    expect(created.events).toEqual(['task.created', 'lead.created']);
  });

  it('accepts "*" alone and keeps only the event read scopes the key holds', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['webhooks.create', 'leads.read', 'tasks.create'] });
    const created = await createEndpoint(key, { events: ['*'] });
    expect(created.events).toEqual(['*']);
    expect((await storedEndpoint(ws.org.id, created.id)).read_scopes).toEqual(['leads.read']);
  });

  it('answers 403 naming the read scope a listed type needs, storing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['webhooks.create', 'tasks.read'] });
    const res = await create(key, { url: URL, events: ['task.created', 'lead.created'] });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'webhooks.create').message).toBe('missing scope: leads.read (to subscribe to lead.created)');
    expect(await endpointCount(ws.org.id)).toBe(0);
  });

  it.each([
    ['an ftp: URL', { url: 'ftp://example.com/in' }, [['url']]],
    ['http to a public host (development allows http to localhost only)', { url: 'http://example.com/hook' }, [['url']]],
    ['garbage', { url: 'not a url at all' }, [['url']]],
    ['a blank url', { url: '   ' }, [['url']]],
    ['a url over 2048 characters', { url: `https://example.com/${'x'.repeat(2030)}` }, [['url']]],
    ['an unknown event type', { events: ['lead.exploded'] }, [['events', 0]]],
    ['no event types', { events: [] }, [['events']]],
    ['"*" beside a type', { events: ['*', 'lead.created'] }, [['events']]],
    ['an unknown field', { secret: 'whsec_mine' }, [['secret']]],
  ])('answers 400 naming the field for %s, storing nothing', async (_label, change, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, { url: URL, events: ['lead.created'], ...change });
    expectRpcFailure(res, 'BAD_REQUEST', 'webhooks.create');
    expect(issuePaths(res)).toEqual(paths);
    expect(await endpointCount(ws.org.id)).toBe(0);
  });

  it('accepts http://localhost in development (tests and local receivers)', async () => {
    const ws = await createWorkspace(ctx.db);
    expect((await createEndpoint(ws.key, { url: 'http://localhost:4000/hook' })).url).toBe('http://localhost:4000/hook');
  });

  it('under the production policy refuses http, private addresses and names resolving to loopback', async () => {
    const production = createApp({ db: ctx.db, config: { ...TEST_JWT_SECRETS, BODY_LIMIT: '1mb', KEY_CACHE_TTL_MS: 1000, NODE_ENV: 'production' }, logger: createLogger('silent') });
    const ws = await createWorkspace(ctx.db);
    for (const url of ['http://localhost/hook', 'https://10.0.0.1/hook', 'https://[::ffff:127.0.0.1]/hook', 'https://localhost/hook']) {
      const res = await create(ws.key, { url, events: ['lead.created'] }, production);
      expect({ url, status: res.status, paths: issuePaths(res) }).toEqual({ url, status: 400, paths: [['url']] });
    }
    expect(await endpointCount(ws.org.id)).toBe(0);
  });

  it.each(EMBEDDED_IPV4_FORMS)('by default (no NODE_ENV) refuses the %s address %s with 400 on url, storing nothing', async (_form, host) => {
    const deployed = createApp({ db: ctx.db, config: { ...TEST_JWT_SECRETS, BODY_LIMIT: '1mb', KEY_CACHE_TTL_MS: 1000 }, logger: createLogger('silent') });
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, { url: `https://${host}/h`, events: ['lead.created'] }, deployed);
    expect({ host, status: res.status, paths: issuePaths(res) }).toEqual({ host, status: 400, paths: [['url']] });
    expect(await endpointCount(ws.org.id)).toBe(0);
  });

  it('answers 409 past 20 endpoints in a workspace', async () => {
    const ws = await createWorkspace(ctx.db);
    for (let i = 0; i < 20; i += 1) await createEndpoint(ws.key);
    const res = await create(ws.key, { url: URL, events: ['lead.created'] });
    expect(expectRpcFailure(res, 'CONFLICT', 'webhooks.create').message).toMatch(/at most 20 webhook endpoints/);
    expect(await endpointCount(ws.org.id)).toBe(20);
  });

  it('keeps the limit under concurrent creates (real PostgreSQL)', async () => {
    const ws = await createWorkspace(ctx.db);
    const answers = await Promise.all(Array.from({ length: 25 }, () => create(ws.key, { url: URL, events: ['lead.created'] })));
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(20).fill(200), ...Array(5).fill(409)]);
    expect(await endpointCount(ws.org.id)).toBe(20);
  });
});

describe('GET webhooks.getById and webhooks.getAll', () => {
  it('getById answers the endpoint as created, without its secret', async () => {
    const ws = await createWorkspace(ctx.db);
    const { secret, ...endpoint } = await createEndpoint(ws.key);
    const res = await rpcGet(ctx.app, 'webhooks.getById', { id: endpoint.id }, ws.key);
    expect(res.status).toBe(200);
    // A new endpoint has no figures yet (tests/integration/webhooks-delivery-stats.test.ts has the rest).
    expect(resultOf(res)).toEqual({ ...endpoint, deliveryStats: { lastAttemptAt: null, lastStatus: null, lastStatusCode: null, attempts24h: 0, successRate24h: null } });
    expect(res.text).not.toContain(secret);
    expect(res.text).not.toContain('whsec_');
  });

  it('getAll answers a page newest first with the exact total, no input needed, never a secret', async () => {
    const ws = await createWorkspace(ctx.db);
    const ids = [];
    for (let i = 0; i < 3; i += 1) {
      const { id } = await createEndpoint(ws.key, { description: `n${i}` });
      // A minute apart, so the order does not hang on milliseconds.
      await ctx.db('webhook_endpoints').where({ org_id: ws.org.id, id }).update({ created_at: new Date(Date.UTC(2030, 0, 1, 10, i)) });
      ids.push(id);
    }
    const all = await rpcGet(ctx.app, 'webhooks.getAll', undefined, ws.key);
    expect(all.status).toBe(200);
    expect(resultOf(all).data.map((e: { id: string }) => e.id)).toEqual([...ids].reverse());
    expect(all.text).not.toContain('whsec_');
    const second = resultOf(await rpcGet(ctx.app, 'webhooks.getAll', { page: 2, pageSize: 2 }, ws.key));
    expect(second.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    expect(second.pagination).toEqual({ page: 2, pageSize: 2, total: 3, totalPages: 2, hasNextPage: false, hasPrevPage: true });
  });

  it('answers 404 for an unknown id, and 403 to a key without webhooks.read', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcFailure(await rpcGet(ctx.app, 'webhooks.getById', { id: 'wh_missing' }, ws.key), 'NOT_FOUND', 'webhooks.getById');
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['webhooks.create'] });
    expect(expectRpcFailure(await rpcGet(ctx.app, 'webhooks.getAll', {}, key), 'FORBIDDEN', 'webhooks.getAll').message).toBe('missing scope: webhooks.read');
  });

  it('makes webhooks.read, create, update and delete grantable scopes', () => {
    expect([...KNOWN_SCOPES]).toEqual(expect.arrayContaining(['webhooks.read', 'webhooks.create', 'webhooks.update', 'webhooks.delete']));
  });
});

describe('POST webhooks.update', () => {
  it('changes url, events and description, and stores them', async () => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    const res = await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, url: 'https://other.example.com/in', events: ['invoice.paid'], description: 'billing' }, ws.key);
    expect(res.status).toBe(200);
    const updated = resultOf(res);
    expect(updated).toMatchObject({ id: endpoint.id, url: 'https://other.example.com/in', events: ['invoice.paid'], description: 'billing', enabled: true });
    expect(updated).not.toHaveProperty('secret');
    expect(updated.updatedAt.getTime()).toBeGreaterThan(endpoint.updatedAt.getTime());
    expect(await storedEndpoint(ws.org.id, endpoint.id)).toMatchObject({ url: 'https://other.example.com/in', events: ['invoice.paid'], description: 'billing', secret: endpoint.secret });
  });

  it('disables, and re-enabling clears failingSince and disabledReason', async () => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    expect(resultOf(await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, enabled: false }, ws.key)).enabled).toBe(false);
    await ctx.db('webhook_endpoints').where({ org_id: ws.org.id, id: endpoint.id }).update({ failing_since: new Date(Date.now() - 86_400_000), disabled_reason: 'failing for 3 days' });
    expect(resultOf(await rpcGet(ctx.app, 'webhooks.getById', { id: endpoint.id }, ws.key))).toMatchObject({ disabledReason: 'failing for 3 days', failingSince: expect.any(Date) });
    const enabled = resultOf(await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, enabled: true }, ws.key));
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    expect(await storedEndpoint(ws.org.id, endpoint.id)).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });

  it.each([
    ['a bad url', { url: 'ftp://example.com' }, [['url']]],
    ['an unknown event type', { events: ['lead.created', 'nope'] }, [['events', 1]]],
    ['enabled as text', { enabled: 'yes' }, [['enabled']]],
  ])('answers 400 for %s, changing nothing', async (_label, change, paths) => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    const before = await storedEndpoint(ws.org.id, endpoint.id);
    const res = await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, ...change }, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'webhooks.update');
    expect(issuePaths(res)).toEqual(paths);
    expect(await storedEndpoint(ws.org.id, endpoint.id)).toEqual(before);
  });

  it("answers 403 when the key cannot read a type it subscribes to, or the endpoint's types when it moves the url", async () => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    const before = await storedEndpoint(ws.org.id, endpoint.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['webhooks.update', 'tasks.read'] });
    const subscribe = await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, events: ['invoice.paid'] }, key);
    expect(expectRpcFailure(subscribe, 'FORBIDDEN', 'webhooks.update').message).toBe('missing scope: invoices.read (to subscribe to invoice.paid)');
    const redirect = await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, url: 'https://attacker.example.com/' }, key);
    expect(expectRpcFailure(redirect, 'FORBIDDEN', 'webhooks.update').message).toBe('missing scope: leads.read (to subscribe to lead.created)');
    expect(await storedEndpoint(ws.org.id, endpoint.id)).toEqual(before);
  });

  it('makes the key that changes url or events the owner, its read scopes bounding "*"', async () => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key, { events: ['*'] });
    const narrow = await createKey(ctx.db, ws.org.id, { scopes: ['webhooks.update', 'tasks.read'] });
    await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, description: 'only a note' }, narrow.key);
    expect(await storedEndpoint(ws.org.id, endpoint.id)).toMatchObject({ owner_id: ws.keyId, read_scopes: [...EVENT_READ_SCOPES] });
    expect((await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, url: 'https://moved.example.com/' }, narrow.key)).status).toBe(200);
    expect(await storedEndpoint(ws.org.id, endpoint.id)).toMatchObject({ owner_id: narrow.id, read_scopes: ['tasks.read'], events: ['*'] });
  });

  it('answers 409 when expectedUpdatedAt is not the current one', async () => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, description: 'first' }, ws.key);
    const stale = await rpcPost(ctx.app, 'webhooks.update', { id: endpoint.id, description: 'second', expectedUpdatedAt: endpoint.updatedAt }, ws.key);
    expectRpcFailure(stale, 'CONFLICT', 'webhooks.update');
    expect((await storedEndpoint(ws.org.id, endpoint.id)).description).toBe('first');
  });
});

describe('POST webhooks.rotateSecret', () => {
  it('replaces the secret at once by default', async () => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    const res = await rpcPost(ctx.app, 'webhooks.rotateSecret', { id: endpoint.id }, ws.key);
    expect(res.status).toBe(200);
    const rotated = resultOf(res);
    expect(rotated).toMatchObject({ id: endpoint.id, secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: null });
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(await storedEndpoint(ws.org.id, endpoint.id)).toMatchObject({ secret: rotated.secret, previous_secret: null, previous_secret_expires_at: null });
  });

  it('keeps the previous secret valid for expirePreviousInSeconds', async () => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    const before = Date.now();
    const rotated = resultOf(await rpcPost(ctx.app, 'webhooks.rotateSecret', { id: endpoint.id, expirePreviousInSeconds: 3600 }, ws.key));
    const row = await storedEndpoint(ws.org.id, endpoint.id);
    expect(row).toMatchObject({ secret: rotated.secret, previous_secret: endpoint.secret });
    expect(row.previous_secret_expires_at.getTime()).toBe(rotated.previousSecretExpiresAt.getTime());
    expect(row.previous_secret_expires_at.getTime() - before).toBeGreaterThanOrEqual(3_599_000);
    expect(row.previous_secret_expires_at.getTime() - Date.now()).toBeLessThanOrEqual(3_600_000);
  });

  it.each([[-1], [86_401], [1.5]])('answers 400 for expirePreviousInSeconds %p', async (seconds) => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    const res = await rpcPost(ctx.app, 'webhooks.rotateSecret', { id: endpoint.id, expirePreviousInSeconds: seconds }, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'webhooks.rotateSecret');
    expect((await storedEndpoint(ws.org.id, endpoint.id)).secret).toBe(endpoint.secret);
  });
});

describe('POST webhooks.delete', () => {
  it('deletes the endpoint with its deliveries; then getById and delete answer 404', async () => {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    await rpcPost(ctx.app, 'leads.create', { name: 'Ada', phone: '+442079460001' }, ws.key);
    expect(await ctx.db('webhook_deliveries').where({ org_id: ws.org.id })).toHaveLength(1);
    const res = await rpcPost(ctx.app, 'webhooks.delete', { id: endpoint.id }, ws.key);
    expect([res.status, resultOf(res)]).toEqual([200, { id: endpoint.id, deleted: true }]);
    expect(await storedEndpoint(ws.org.id, endpoint.id)).toBeUndefined();
    expect(await ctx.db('webhook_deliveries').where({ org_id: ws.org.id })).toEqual([]);
    expectRpcFailure(await rpcGet(ctx.app, 'webhooks.getById', { id: endpoint.id }, ws.key), 'NOT_FOUND', 'webhooks.getById');
    expectRpcFailure(await rpcPost(ctx.app, 'webhooks.delete', { id: endpoint.id }, ws.key), 'NOT_FOUND', 'webhooks.delete');
  });
});

describe('GET webhooks.getDeliveries', () => {
  /** An endpoint on lead.created and three leads: deliveries succeeded (after a 500), failed and pending, oldest to newest. */
  async function endpointWithDeliveries() {
    const ws = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(ws.key);
    for (const phone of ['+442079460001', '+442079460002', '+442079460003']) await rpcPost(ctx.app, 'leads.create', { name: 'Lead', phone }, ws.key);
    const rows = await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, endpoint_id: endpoint.id }).orderBy('event_seq');
    expect(rows).toHaveLength(3);
    const [ok, failed, pending] = rows.map((r) => r.id as string);
    const t0 = new Date('2030-01-01T10:00:00.000Z');
    const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
    // Creation times set apart, so newest-first order does not hang on milliseconds.
    for (const [i, id] of [ok, failed, pending].entries()) await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, id }).update({ created_at: at(i * 10) });
    await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, id: ok }).update({ status: 'succeeded', attempts: 2, completed_at: at(2) });
    await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, id: failed }).update({ status: 'failed', attempts: 1, completed_at: at(11) });
    await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, id: pending }).update({ next_attempt_at: at(25) });
    await ctx.db('webhook_delivery_attempts').insert([
      { org_id: ws.org.id, delivery_id: ok, attempt: 1, started_at: at(0), duration_ms: 120, status_code: 500, error: null, response_excerpt: 'oops' },
      { org_id: ws.org.id, delivery_id: ok, attempt: 2, started_at: at(2), duration_ms: 80, status_code: 200, error: null, response_excerpt: 'ok' },
      { org_id: ws.org.id, delivery_id: failed, attempt: 1, started_at: at(11), duration_ms: 10_000, status_code: null, error: 'timeout', response_excerpt: null },
    ]);
    return { ws, endpoint, ok: ok!, failed: failed!, pending: pending!, at };
  }

  it('answers the deliveries newest first with their attempts, event and next attempt', async () => {
    const { ws, endpoint, ok, failed, pending, at } = await endpointWithDeliveries();
    const res = await rpcGet(ctx.app, 'webhooks.getDeliveries', { id: endpoint.id }, ws.key);
    expect(res.status).toBe(200);
    const page = resultOf(res);
    expect(page.pagination).toMatchObject({ total: 3, page: 1 });
    expect(page.data.map((d: { id: string }) => d.id)).toEqual([pending, failed, ok]);
    expect(page.data[0]).toEqual({
      id: pending, eventId: expect.stringMatching(/^evt_/), eventType: 'lead.created', status: 'pending', attempts: [],
      nextAttemptAt: at(25), createdAt: at(20), completedAt: null,
    });
    expect(page.data[1]).toMatchObject({
      status: 'failed', nextAttemptAt: null, completedAt: at(11),
      attempts: [{ attempt: 1, startedAt: at(11), durationMs: 10_000, statusCode: null, error: 'timeout', responseExcerpt: null }],
    });
    expect(page.data[2].attempts).toEqual([
      { attempt: 1, startedAt: at(0), durationMs: 120, statusCode: 500, error: null, responseExcerpt: 'oops' },
      { attempt: 2, startedAt: at(2), durationMs: 80, statusCode: 200, error: null, responseExcerpt: 'ok' },
    ]);
    const eventIds = await ctx.db('events').where({ org_id: ws.org.id, type: 'lead.created' }).pluck('id');
    expect(eventIds).toContain(page.data[0].eventId);
  });

  it('filters by status and pages', async () => {
    const { ws, endpoint, failed, pending } = await endpointWithDeliveries();
    const only = resultOf(await rpcGet(ctx.app, 'webhooks.getDeliveries', { id: endpoint.id, status: 'failed' }, ws.key));
    expect([only.data.map((d: { id: string }) => d.id), only.pagination.total]).toEqual([[failed], 1]);
    const first = resultOf(await rpcGet(ctx.app, 'webhooks.getDeliveries', { id: endpoint.id, pageSize: 1 }, ws.key));
    expect([first.data.map((d: { id: string }) => d.id), first.pagination.totalPages, first.pagination.hasNextPage]).toEqual([[pending], 3, true]);
    const bad = await rpcGet(ctx.app, 'webhooks.getDeliveries', { id: endpoint.id, status: 'lost' }, ws.key);
    expect(issuePaths(bad)).toEqual([['status']]);
  });

  it('answers 404 for an unknown endpoint', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcFailure(await rpcGet(ctx.app, 'webhooks.getDeliveries', { id: 'wh_missing' }, ws.key), 'NOT_FOUND', 'webhooks.getDeliveries');
  });
});

describe("another workspace's endpoint", () => {
  it.each([
    ['webhooks.getById', 'GET', {}],
    ['webhooks.getDeliveries', 'GET', {}],
    ['webhooks.update', 'POST', { enabled: false, url: 'https://a.example.com/' }],
    ['webhooks.rotateSecret', 'POST', { expirePreviousInSeconds: 60 }],
    ['webhooks.delete', 'POST', {}],
  ] as const)('%s answers 404 and changes nothing', async (name, method, extra) => {
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    const endpoint = await createEndpoint(b.key);
    const before = await storedEndpoint(b.org.id, endpoint.id);
    const input = { id: endpoint.id, ...extra };
    const res = method === 'GET' ? await rpcGet(ctx.app, name, input, a.key) : await rpcPost(ctx.app, name, input, a.key);
    expectRpcFailure(res, 'NOT_FOUND', name);
    expect(res.text).not.toContain(endpoint.secret);
    expect(await storedEndpoint(b.org.id, endpoint.id)).toEqual(before);
  });

  it('webhooks.getAll never lists it', async () => {
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    await createEndpoint(b.key);
    expect(resultOf(await rpcGet(ctx.app, 'webhooks.getAll', {}, a.key)).pagination.total).toBe(0);
  });
});
