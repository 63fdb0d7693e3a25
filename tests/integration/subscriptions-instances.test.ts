import type { Express } from 'express';
import { createTestContext, createTestDb, testDatabaseUrl, type TestContext } from '../helpers/test-app';
import { createWorkspace, unique } from '../helpers/factories';
import { rpcPost } from '../helpers/rpc';
import { listen, openStream, subscriptionPath } from '../helpers/sse';
import { describeWithRedis, TEST_REDIS_URL } from '../helpers/rate-limit';
import { wireLiveUpdates } from '../helpers/live-updates';
import { createLogger } from '../../src/logger';
import { recordEvents } from '../../src/events/record-events';
import * as contacts from '../../src/db/contacts';
import type { ListenerOptions } from '../../src/live/notification-listener';
import { until } from '../helpers/poll';

/** One instance of the service as index.ts wires it: its own pool, LISTEN connection and wake-ups. */
async function startInstance(options: { redisUrl?: string; pollMs?: number; listener?: Partial<ListenerOptions> } = {}) {
  const db = createTestDb(3);
  const liveUpdates = wireLiveUpdates({
    db, databaseUrl: testDatabaseUrl(), logger: createLogger('silent'), redisUrl: options.redisUrl, pollMs: options.pollMs, listener: options.listener,
    settings: { pingMs: 10_000, maxDurationMs: 0, recheckMs: 500 },
  });
  liveUpdates.listener.start();
  const ctx: TestContext = createTestContext({ db, live: liveUpdates.live, cacheInvalidation: liveUpdates.cacheInvalidation });
  const server = await listen(ctx.app);
  while (!liveUpdates.cacheInvalidation.isLive()) await new Promise((resolve) => setTimeout(resolve, 20));
  return {
    ...ctx, url: server.url, liveUpdates,
    async stop() {
      await server.close();
      await liveUpdates.stop();
      await liveUpdates.listener.stop();
      await ctx.close();
    },
  };
}
type Instance = Awaited<ReturnType<typeof startInstance>>;

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

async function createContact(app: Express, key: string, name: string) {
  const res = await rpcPost(app, 'contacts.create', { name }, key);
  if (res.status !== 200) throw new Error(`contacts.create answered ${res.status}: ${res.text}`);
}

async function opened(instance: Instance, key: string, headers: Record<string, string> = {}, name = 'events.onEvent') {
  const stream = await openStream(instance.url, subscriptionPath(name), { ...auth(key), ...headers });
  expect(stream.status).toBe(200);
  expect((await stream.next()).event).toBe('connected');
  return stream;
}

describe('two instances on one database (wake-ups through LISTEN/NOTIFY)', () => {
  let a: Instance;
  let b: Instance;
  beforeAll(async () => {
    [a, b] = await Promise.all([startInstance(), startInstance()]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("delivers a write made through one instance to the other's subscribers", async () => {
    const ws = await createWorkspace(a.db);
    const onA = await opened(a, ws.key);
    const onB = await opened(b, ws.key);
    await createContact(a.app, ws.key, 'Written on A');
    await createContact(b.app, ws.key, 'Written on B');
    for (const stream of [onA, onB]) {
      expect((await stream.values(2)).map(({ value }) => value.data.object.name)).toEqual(['Written on A', 'Written on B']);
      stream.close();
    }
  });

  it('ends streams at shutdown as a dropped connection; the client resumes on the other instance with nothing missed', async () => {
    const ws = await createWorkspace(a.db);
    const onA = await opened(a, ws.key);
    await createContact(a.app, ws.key, 'Seen on A');
    const [seen] = await onA.values(1);
    a.liveUpdates.live.streams.closeAll(); // what graceful shutdown does first
    await onA.ended();
    expect(onA.frames.map((f) => f.event)).not.toContain('return');
    await createContact(b.app, ws.key, 'Written during the move');
    const onB = await opened(b, ws.key, { 'Last-Event-ID': seen!.id! });
    await createContact(b.app, ws.key, 'Live on B');
    expect((await onB.values(2)).map(({ value }) => value.data.object.name)).toEqual(['Written during the move', 'Live on B']);
    onB.close();
  });

  it('dashboard.onLeadStats: current stats first, then fresh ones after a change, at most once a second', async () => {
    const ws = await createWorkspace(a.db);
    const stats = await opened(b, ws.key, {}, 'dashboard.onLeadStats');
    const [first] = await stats.values(1);
    expect(first!.value.byStatus.NOT_CONTACTED).toBe(0);
    expect(first!.value.range.from).toBeInstanceOf(Date);
    const writesStarted = Date.now();
    for (let i = 0; i < 5; i++) {
      const res = await rpcPost(a.app, 'leads.create', { name: `Lead ${i}`, phone: `+4420794600${10 + i}` }, ws.key);
      expect(res.status).toBe(200);
    }
    const fresh = [];
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      const [next] = await stats.values(1, Math.max(1, deadline - Date.now())).catch(() => []);
      if (!next) break;
      fresh.push({ at: Date.now(), value: next.value });
      if (next.value.byStatus.NOT_CONTACTED === 5) break;
    }
    expect(fresh.at(-1)!.value.byStatus.NOT_CONTACTED).toBe(5);
    // Five writes within a second or so: one refresh at once, then at most one a second.
    expect(fresh.length).toBeLessThanOrEqual(Math.ceil((fresh.at(-1)!.at - writesStarted) / 1000) + 1);
    stats.close();
  });

  it('no gap: an event committed late by an older transaction is sent before younger ones it held back', async () => {
    const ws = await createWorkspace(a.db);
    const stream = await opened(b, ws.key);
    let commitSlow: (() => void) | undefined;
    const slow = a.db.transaction(async (trx) => {
      const contact = await contacts.insert(trx, ws.org.id, { name: 'Slow', emails: [], phones: [] } as never);
      await recordEvents(trx, { orgId: ws.org.id, actor: { kind: 'apiKey', id: ws.keyId } }, [{ type: 'contact.created', object: contact }]);
      await new Promise<void>((resolve) => (commitSlow = resolve));
    });
    while (!commitSlow) await new Promise((resolve) => setTimeout(resolve, 5));
    await createContact(a.app, ws.key, 'Fast');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.frames.filter((f) => f.event === 'message')).toHaveLength(0);
    commitSlow();
    await slow;
    // Slow's commit woke nobody (it is no API write): the held-back read found it.
    expect((await stream.values(2)).map(({ value }) => value.data.object.name)).toEqual(['Slow', 'Fast']);
    stream.close();
  });
});

it('a wake-up lost only delays: a feed also reads on its own every LIVE_POLL_MS', async () => {
  const instance = await startInstance({ pollMs: 500 });
  try {
    const ws = await createWorkspace(instance.db);
    const stream = await opened(instance, ws.key);
    // Recorded without any wake-up, as by an instance that died between its commit and its NOTIFY.
    await instance.db.transaction(async (trx) => {
      const contact = await contacts.insert(trx, ws.org.id, { name: 'Unannounced', emails: [], phones: [] } as never);
      await recordEvents(trx, { orgId: ws.org.id, actor: { kind: 'apiKey', id: ws.keyId } }, [{ type: 'contact.created', object: contact }]);
    });
    expect((await stream.values(1, 2000))[0]!.value.data.object.name).toBe('Unannounced');
    stream.close();
  } finally {
    await instance.stop();
  }
});

it('wakes every reader when the LISTEN connection comes back, since wake-ups may have been missed meanwhile', async () => {
  const applicationName = unique('wsapi-live');
  const instance = await startInstance({ pollMs: 60_000, listener: { applicationName, retryDelayMs: { min: 50, max: 50 } } });
  try {
    const ws = await createWorkspace(instance.db);
    const stream = await opened(instance, ws.key);
    // Recorded without any wake-up: only the reconnection's wakes this reader (its own look is a minute away).
    await instance.db.transaction(async (trx) => {
      const contact = await contacts.insert(trx, ws.org.id, { name: 'Missed while away', emails: [], phones: [] } as never);
      await recordEvents(trx, { orgId: ws.org.id, actor: { kind: 'apiKey', id: ws.keyId } }, [{ type: 'contact.created', object: contact }]);
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.frames.filter((f) => f.event === 'message')).toHaveLength(0);
    await instance.db.raw('select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?', [applicationName]);
    expect(await until(() => !instance.liveUpdates.listener.isLive(), 2000, 5)).toBe(true);
    expect((await stream.values(1, 3000))[0]!.value.data.object.name).toBe('Missed while away');
    expect(instance.liveUpdates.listener.isLive()).toBe(true);
    stream.close();
  } finally {
    await instance.stop();
  }
});

describeWithRedis('two instances with REDIS_URL (wake-ups through Redis pub/sub)', () => {
  it("delivers a write made through one instance to the other's subscribers", async () => {
    const [a, b] = await Promise.all([startInstance({ redisUrl: TEST_REDIS_URL }), startInstance({ redisUrl: TEST_REDIS_URL })]);
    try {
      const ws = await createWorkspace(a.db);
      const onB = await opened(b, ws.key);
      await new Promise((resolve) => setTimeout(resolve, 200)); // b's subscriber connection is up
      await createContact(a.app, ws.key, 'Through Redis');
      expect((await onB.values(1, 2000))[0]!.value.data.object.name).toBe('Through Redis');
      onB.close();
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
