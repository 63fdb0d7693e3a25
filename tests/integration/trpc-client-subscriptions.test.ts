import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink, TRPCClientError } from '@trpc/client';
import type { Unsubscribable } from '@trpc/server/observable';
import superjson from 'superjson';
import type { AppRouter } from '@workspace-api/client';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace, unique } from '../helpers/factories';
import { listen } from '../helpers/sse';
import * as apiKeysQueries from '../../src/db/api-keys';

/**
 * The official tRPC client as docs/events-and-webhooks.md and the README show it (the last test
 * checks that the construction below is theirs, word for word): subscriptions over Server-Sent
 * Events through `httpSubscriptionLink` with the `eventsource` package, everything else through
 * `httpLink`, against the service listening on a real port.
 */
function createApiClient(url: string, apiKey: string) {
  const trpc = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        // Server-Sent Events. The `eventsource` package sends the key in a header, through its fetch option.
        true: httpSubscriptionLink({
          url,
          transformer: superjson,
          EventSource,
          eventSourceOptions: {
            fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, Authorization: `Bearer ${apiKey}` } }),
          },
        }),
        false: httpLink({ url, transformer: superjson, headers: { Authorization: `Bearer ${apiKey}` } }),
      }),
    ],
  });
  return trpc;
}

type Client = ReturnType<typeof createApiClient>;
type Received = { id: string; data: { id: string; type: string; createdAt: Date; data: { object: { id: string } } } };

jest.setTimeout(60_000);

const ctx = createTestContext();
let server: Awaited<ReturnType<typeof listen>>;
/** Every request for events.onEvent the server received: its key, its Last-Event-ID and its socket. */
const streamRequests: { authorization: string | undefined; lastEventId: string | undefined; socket: Socket }[] = [];
const subscriptions: Unsubscribable[] = [];

beforeAll(async () => {
  server = await listen(ctx.app);
  server.server.on('request', (req: IncomingMessage) => {
    if (!req.url?.startsWith('/api/v1/rpc/events.onEvent')) return;
    streamRequests.push({ authorization: req.headers.authorization, lastEventId: req.headers['last-event-id'] as string | undefined, socket: req.socket });
  });
});

afterEach(() => subscriptions.splice(0).forEach((subscription) => subscription.unsubscribe()));

afterAll(async () => {
  await server.close();
  await ctx.close();
});

/**
 * Polls until `check` holds. Events show once every older transaction has ended (the horizon,
 * src/db/events), and another test's open transaction holds that back while it stays open: hence 20 s.
 */
async function waitFor(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * events.onEvent through the client, recording in order what its callbacks saw:
 * `started` at each (re)connection, each event's id, and the error that ended it.
 */
function watchEvents(trpc: Client, input: { types?: ('contact.created' | 'lead.created')[] } = {}) {
  const log: string[] = [];
  const events: Received[] = [];
  let error: unknown;
  const subscription = trpc.events.onEvent.subscribe(input, {
    onStarted: () => log.push('started'),
    onData: (event) => {
      log.push(event.id);
      events.push(event);
    },
    onError: (err) => {
      log.push('error');
      error = err;
    },
  });
  subscriptions.push(subscription);
  return {
    log, events, subscription,
    error: () => error,
    starts: () => log.filter((entry) => entry === 'started').length,
    until: (n: number) => waitFor(`${n} events (have ${events.length})`, () => events.length >= n),
  };
}

const requestsWith = (key: string) => streamRequests.filter((r) => r.authorization === `Bearer ${key}`);

const createContact = (trpc: Client) => trpc.contacts.create.mutate({ name: unique('Contact') });

describe('events.onEvent through @trpc/client (httpSubscriptionLink)', () => {
  it('receives the events of writes made through the same client, each once, in order, with Dates as Dates', async () => {
    const ws = await createWorkspace(ctx.db);
    const trpc = createApiClient(`${server.url}/api/v1/rpc`, ws.key);
    const watch = watchEvents(trpc);
    await waitFor('the stream to start', () => watch.starts() === 1);

    const contact = await createContact(trpc);
    const lead = await trpc.leads.create.mutate({ name: unique('Lead'), phone: '+442079460001' });
    const stored = await ctx.db('events').where({ org_id: ws.org.id }).orderBy(['txid', 'seq']).select('id', 'type', 'data');
    await watch.until(stored.length);
    await new Promise((resolve) => setTimeout(resolve, 300));
    watch.subscription.unsubscribe();

    expect(watch.events.map((e) => [e.id, e.data.type, e.data.data.object.id])).toEqual(stored.map((row) => [row.id, row.type, row.data.object.id]));
    expect(watch.events.filter((e) => e.data.type === 'contact.created')[0]!.data.data.object.id).toBe(contact.id);
    expect(watch.events.filter((e) => e.data.type === 'lead.created').map((e) => e.data.data.object.id)).toEqual([lead.id]);
    expect(watch.events.every((e) => e.id === e.data.id)).toBe(true);
    expect(watch.events[0]!.data.createdAt).toBeInstanceOf(Date);
    expect(watch.error()).toBeUndefined();
  });

  it('sends only the asked types', async () => {
    const ws = await createWorkspace(ctx.db);
    const trpc = createApiClient(`${server.url}/api/v1/rpc`, ws.key);
    const watch = watchEvents(trpc, { types: ['lead.created'] });
    await waitFor('the stream to start', () => watch.starts() === 1);

    await createContact(trpc);
    const lead = await trpc.leads.create.mutate({ name: unique('Lead'), phone: '+442079460002' });
    await watch.until(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    watch.subscription.unsubscribe();

    expect(watch.events.map((e) => [e.data.type, e.data.data.object.id])).toEqual([['lead.created', lead.id]]);
  });

  it('after a dropped connection, reconnects by itself with Last-Event-ID and gets exactly the events it missed, then live ones', async () => {
    const ws = await createWorkspace(ctx.db);
    const trpc = createApiClient(`${server.url}/api/v1/rpc`, ws.key);
    const watch = watchEvents(trpc, { types: ['contact.created'] });
    await waitFor('the stream to start', () => watch.starts() === 1);
    await createContact(trpc);
    await createContact(trpc);
    await watch.until(2);

    // The stream's socket is cut on the server's side; EventSource waits 3 s before it reconnects.
    requestsWith(ws.key)[0]!.socket.destroy();
    const missed = [await createContact(trpc), await createContact(trpc)];
    expect(watch.starts()).toBe(1);
    await waitFor('the reconnection', () => watch.starts() === 2);
    const live = await createContact(trpc);
    await watch.until(5);
    await new Promise((resolve) => setTimeout(resolve, 300));
    watch.subscription.unsubscribe();

    const ids = watch.events.map((e) => e.id);
    expect(watch.log).toEqual(['started', ids[0], ids[1], 'started', ids[2], ids[3], ids[4]]);
    expect(watch.events.slice(2).map((e) => e.data.data.object.id)).toEqual([...missed, live].map((c) => c.id));
    const stored = await ctx.db('events').where({ org_id: ws.org.id, type: 'contact.created' }).orderBy(['txid', 'seq']).pluck('id');
    expect(ids).toEqual(stored);
    expect(requestsWith(ws.key).map((r) => r.lastEventId)).toEqual([undefined, ids[1]]);
  });

  it('ends with UNAUTHORIZED when its key is revoked, and does not reconnect', async () => {
    const ws = await createWorkspace(ctx.db);
    const trpc = createApiClient(`${server.url}/api/v1/rpc`, ws.key);
    const watch = watchEvents(trpc);
    await waitFor('the stream to start', () => watch.starts() === 1);
    await createContact(trpc);
    await watch.until(1);

    // As apiKeys.revoke (the app's) does: revoked, and every instance told at commit.
    const revokedAt = Date.now();
    await apiKeysQueries.revokeInOrg(ctx.db, ws.org.id, ws.keyId);
    await waitFor('the error', () => watch.error() !== undefined, 5_000);
    const endedWithinMs = Date.now() - revokedAt;

    const err = watch.error();
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err as TRPCClientError<AppRouter>).data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    // The key cache (1 s here) and the re-check interval (500 ms) bound it.
    expect(endedWithinMs).toBeLessThan(2_000);
    // Longer than EventSource's 3 s reconnection delay: no second request.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(watch.log).toEqual(['started', watch.events[0]!.id, 'error']);
    expect(requestsWith(ws.key)).toHaveLength(1);
    await expect(createContact(trpc)).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
  });
});

describe('dashboard.onLeadStats through @trpc/client', () => {
  it('answers the stats on connect, then fresh stats after a lead is created', async () => {
    const ws = await createWorkspace(ctx.db);
    const trpc = createApiClient(`${server.url}/api/v1/rpc`, ws.key);
    const stats: { byStatus: { NOT_CONTACTED: number } }[] = [];
    const subscription = trpc.dashboard.onLeadStats.subscribe(undefined, { onData: (value) => stats.push(value) });
    subscriptions.push(subscription);
    await waitFor('the first stats', () => stats.length === 1);

    await trpc.leads.create.mutate({ name: unique('Lead'), phone: '+442079460003' });
    await waitFor('fresh stats', () => stats.length === 2);
    subscription.unsubscribe();

    expect(stats.map((s) => s.byStatus.NOT_CONTACTED)).toEqual([0, 1]);
  });
});

describe('the documented client', () => {
  /** The `createTRPCClient<AppRouter>({ ... });` statement that follows `from`, each line trimmed. */
  function construction(text: string, from: number): string {
    const lines = text.slice(from).split('\n');
    const start = lines.findIndex((line) => /= createTRPCClient<AppRouter>\(\{$/.test(line));
    const end = lines.findIndex((line, i) => i > start && line.trim() === '});');
    if (start === -1 || end === -1) throw new Error('no createTRPCClient<AppRouter>({ ... }); statement');
    return lines.slice(start, end + 1).map((line) => line.trim()).join('\n');
  }

  it.each(['docs/events-and-webhooks.md', 'README.md'])('is the one %s shows, word for word', (file) => {
    const ours = readFileSync(__filename, 'utf8');
    const shown = readFileSync(join(__dirname, '..', '..', file), 'utf8');
    // The fenced block that imports httpSubscriptionLink.
    const block = shown.lastIndexOf('```ts', shown.indexOf('httpSubscriptionLink, splitLink'));
    expect(block).toBeGreaterThanOrEqual(0);
    expect(construction(shown, block)).toBe(construction(ours, ours.indexOf('function createApiClient')));
  });
});
