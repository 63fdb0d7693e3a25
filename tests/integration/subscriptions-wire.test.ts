import superjson from 'superjson';
import { createTestContext, createTestDb } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { errorOf, rpcPost } from '../helpers/rpc';
import { listen, openStream, subscriptionPath } from '../helpers/sse';
import { createLocalLive } from '../../src/live/live-updates';
import { createLogger } from '../../src/logger';
import { createRateLimiter } from '../../src/ratelimit/rate-limiter';
import { createMemoryWindowStore } from '../../src/ratelimit/memory-window-store';
import { keyLimitsOf } from '../../src/ratelimit/limits';

const db = createTestDb();
// Short intervals, so pings and rotation show within a test.
const live = createLocalLive(db, createLogger('silent'), { pingMs: 300, maxDurationMs: 0, recheckMs: 500 });
const ctx = createTestContext({ db, live });
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => (server = await listen(ctx.app)));
afterAll(async () => {
  await server.close();
  live.streams.stop();
  live.feeds.stop();
  await ctx.close();
});

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

async function createContact(key: string, name: string, app = ctx.app) {
  const res = await rpcPost(app, 'contacts.create', { name }, key);
  if (res.status !== 200) throw new Error(`contacts.create answered ${res.status}: ${res.text}`);
}

describe('GET events.onEvent: the wire', () => {
  it("opens as tRPC's httpSubscriptionLink expects: 200 text/event-stream, `connected` with the client options first", async () => {
    const ws = await createWorkspace(ctx.db);
    const stream = await openStream(server.url, subscriptionPath('events.onEvent', {}), auth(ws.key));
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    expect(stream.headers['cache-control']).toBe('no-cache, no-transform');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    expect(await stream.next()).toEqual({ event: 'connected', data: JSON.stringify({ reconnectAfterInactivityMs: 900 }) });
    stream.close();
  });

  it('sends each committed event as a default message: superjson data (Dates as Dates), `id:` the event id', async () => {
    const ws = await createWorkspace(ctx.db);
    const stream = await openStream(server.url, subscriptionPath('events.onEvent', {}), auth(ws.key));
    await stream.next();
    await createContact(ws.key, 'Ada');
    const { id, value } = (await stream.values(1))[0]!;
    expect(value).toMatchObject({ type: 'contact.created', orgId: ws.org.id, actor: { kind: 'apiKey', id: ws.keyId }, data: { object: { name: 'Ada' } } });
    expect(id).toBe(value.id);
    expect(value.createdAt).toBeInstanceOf(Date);
    // The same event as events.getAll answers it.
    const listed = await ctx.db('events').where({ org_id: ws.org.id, id }).first('type');
    expect(listed.type).toBe('contact.created');
    stream.close();
  });

  it('sends a ping after a quiet interval and nothing else', async () => {
    const ws = await createWorkspace(ctx.db);
    const stream = await openStream(server.url, subscriptionPath('events.onEvent'), auth(ws.key));
    await stream.next();
    expect(await stream.next(2000)).toEqual({ event: 'ping', data: '' });
    stream.close();
  });

  it("streams only the given `types`, and another workspace's events never", async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const stream = await openStream(server.url, subscriptionPath('events.onEvent', { types: ['task.created'] }), auth(ws.key));
    await stream.next();
    await createContact(ws.key, 'Not sent');
    await createContact(other.key, 'Other workspace');
    await rpcPost(ctx.app, 'tasks.create', { title: 'Call back' }, other.key);
    await rpcPost(ctx.app, 'tasks.create', { title: 'Sent' }, ws.key);
    const { value } = (await stream.values(1))[0]!;
    expect(value).toMatchObject({ type: 'task.created', orgId: ws.org.id, data: { object: { title: 'Sent' } } });
    stream.close();
  });
});

describe('GET events.onEvent: resuming', () => {
  async function threeEvents(key: string) {
    const stream = await openStream(server.url, subscriptionPath('events.onEvent'), auth(key));
    await stream.next();
    for (const name of ['One', 'Two', 'Three']) await createContact(key, name);
    const values = await stream.values(3);
    stream.close();
    return values;
  }

  it('after Last-Event-ID sends exactly the events missed, then live ones: no gap, no repeat', async () => {
    const ws = await createWorkspace(ctx.db);
    const [first] = await threeEvents(ws.key);
    // Missed while disconnected:
    await createContact(ws.key, 'Four');
    const stream = await openStream(server.url, subscriptionPath('events.onEvent'), { ...auth(ws.key), 'Last-Event-ID': first!.id! });
    await stream.next();
    await createContact(ws.key, 'Five');
    const names = (await stream.values(4)).map(({ value }) => value.data.object.name);
    expect(names).toEqual(['Two', 'Three', 'Four', 'Five']);
    await createContact(ws.key, 'Six');
    expect((await stream.values(1))[0]!.value.data.object.name).toBe('Six');
    stream.close();
  });

  it('takes the resume point from ?lastEventId= or the input too, the header first (as tRPC merges it)', async () => {
    const ws = await createWorkspace(ctx.db);
    const [first, second] = await threeEvents(ws.key);
    const byParam = await openStream(server.url, subscriptionPath('events.onEvent', {}, { lastEventId: first!.id! }), auth(ws.key));
    await byParam.next();
    expect((await byParam.values(2)).map(({ id }) => id)).toEqual([second!.id, expect.any(String)]);
    byParam.close();
    const byInput = await openStream(server.url, subscriptionPath('events.onEvent', { lastEventId: second!.id }), auth(ws.key));
    await byInput.next();
    expect((await byInput.values(1))[0]!.value.data.object.name).toBe('Three');
    byInput.close();
    const headerFirst = await openStream(server.url, subscriptionPath('events.onEvent', {}, { lastEventId: first!.id! }), { ...auth(ws.key), 'Last-Event-ID': second!.id! });
    await headerFirst.next();
    expect((await headerFirst.values(1))[0]!.value.data.object.name).toBe('Three');
    headerFirst.close();
  });

  it("answers 404 before the stream for a resume point that is not this workspace's event", async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const [theirs] = await threeEvents(other.key);
    const stream = await openStream(server.url, subscriptionPath('events.onEvent'), { ...auth(ws.key), 'Last-Event-ID': theirs!.id! });
    expect(stream.status).toBe(404);
    expect(errorOf({ body: JSON.parse(stream.body() || (await stream.ended(), stream.body())) })).toMatchObject({ data: { code: 'NOT_FOUND', httpStatus: 404, path: 'events.onEvent' } });
  });

  it('ends rotated streams as a dropped connection (no `return`), and the reconnection resumes', async () => {
    const rotating = createLocalLive(db, createLogger('silent'), { pingMs: 5000, maxDurationMs: 1500, recheckMs: 500 });
    const app = createTestContext({ db: createTestDb(2), live: rotating });
    const rotatingServer = await listen(app.app);
    try {
      const ws = await createWorkspace(ctx.db);
      const stream = await openStream(rotatingServer.url, subscriptionPath('events.onEvent'), auth(ws.key));
      await stream.next();
      // Through this app: its wake-ups reach its own readers only.
      await createContact(ws.key, 'Before', app.app);
      const [before] = await stream.values(1);
      await stream.ended(4000);
      expect(stream.frames.map((f) => f.event)).not.toContain('return');
      await createContact(ws.key, 'While away', app.app);
      const again = await openStream(rotatingServer.url, subscriptionPath('events.onEvent'), { ...auth(ws.key), 'Last-Event-ID': before!.id! });
      await again.next();
      expect((await again.values(1))[0]!.value.data.object.name).toBe('While away');
      again.close();
    } finally {
      await rotatingServer.close();
      rotating.streams.stop();
      rotating.feeds.stop();
      await app.close();
    }
  });
});

describe('GET events.onEvent: refused before the stream starts, in the error envelope with its status', () => {
  async function refusal(path: string, headers: Record<string, string> = {}, method = 'GET') {
    const res = await fetch(`${server.url}${path}`, { method, headers });
    const body: any = await res.json();
    return { status: res.status, error: errorOf({ body }), headers: res.headers };
  }

  it('401 without a key, with a wrong key', async () => {
    expect((await refusal(subscriptionPath('events.onEvent'))).error.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    expect((await refusal(subscriptionPath('events.onEvent'), auth(`wsk_${'a'.repeat(40)}`))).status).toBe(401);
  });

  it('403 for a tier below BUSINESS, a key without events.read, types the key cannot read', async () => {
    const free = await createWorkspace(ctx.db, { tier: 'FREE' });
    expect((await refusal(subscriptionPath('events.onEvent'), auth(free.key))).error.message).toMatch(/BUSINESS tier/);
    const ws = await createWorkspace(ctx.db);
    const noEvents = await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read'] });
    expect((await refusal(subscriptionPath('events.onEvent'), auth(noEvents.key))).error.message).toBe('missing scope: events.read');
    const noTasks = await createKey(ctx.db, ws.org.id, { scopes: ['events.read', 'contacts.read'] });
    const hidden = await refusal(subscriptionPath('events.onEvent', { types: ['task.created'] }), auth(noTasks.key));
    expect(hidden).toMatchObject({ status: 403, error: { message: 'missing scope: tasks.read (to see task.created events)' } });
  });

  it('400 for an input outside the schema, a malformed envelope, a malformed resume point', async () => {
    const ws = await createWorkspace(ctx.db);
    const badType = await refusal(subscriptionPath('events.onEvent', { types: ['lead.exploded'] }), auth(ws.key));
    expect(badType.status).toBe(400);
    expect(badType.error.data.issues?.[0]?.path).toEqual(['types', 0]);
    expect((await refusal('/api/v1/rpc/events.onEvent?input=%7Bnot-json', auth(ws.key))).status).toBe(400);
    const badId = await refusal(subscriptionPath('events.onEvent'), { ...auth(ws.key), 'Last-Event-ID': 'x'.repeat(300) });
    expect(badId.status).toBe(400);
    expect(badId.error.data.issues?.[0]?.path).toEqual(['lastEventId']);
  });

  it('404 for a procedure that does not exist; 405 (Allow: GET) for a POST to a subscription', async () => {
    const ws = await createWorkspace(ctx.db);
    expect((await refusal(subscriptionPath('events.onNothing'), auth(ws.key))).status).toBe(404);
    const post = await refusal(subscriptionPath('events.onEvent'), { ...auth(ws.key), 'Content-Type': 'application/json' }, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('429 once the key has spent its budget: opening a subscription counts as one call', async () => {
    const limited = createTestContext({
      db: createTestDb(2), live,
      rateLimiter: createRateLimiter({ store: createMemoryWindowStore(), logger: createLogger('silent'), keyLimits: keyLimitsOf(2), failedAuthLimit: 100 }),
    });
    const limitedServer = await listen(limited.app);
    try {
      const ws = await createWorkspace(ctx.db);
      const opened = [];
      for (let i = 0; i < 2; i++) {
        const stream = await openStream(limitedServer.url, subscriptionPath('events.onEvent'), auth(ws.key));
        expect(stream.status).toBe(200);
        opened.push(stream);
      }
      const refused = await fetch(`${limitedServer.url}${subscriptionPath('events.onEvent')}`, { headers: auth(ws.key) });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(errorOf({ body: await refused.json() }).data.code).toBe('TOO_MANY_REQUESTS');
      opened.forEach((stream) => stream.close());
    } finally {
      await limitedServer.close();
      await limited.close();
    }
  });
});

it('superjson is what the frames carry (a check of the helper)', () => {
  expect(superjson.deserialize(superjson.serialize({ at: new Date(0) }))).toEqual({ at: new Date(0) });
});
