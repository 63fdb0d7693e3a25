import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createWorkspaceClient, WorkspaceApiError, type FetchLike, type WorkspaceClient, type WorkspaceEvent } from '@workspace-api/client';
import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { listen } from '../helpers/sse';
import * as apiKeysQueries from '../../src/db/api-keys';
import { typedEventOutput } from '../../src/procedures/events/typed-events.schema';

/**
 * `@workspace-api/client`'s events.subscribe against the service on a real port and real
 * PostgreSQL: live events, typed and revived; a resume after the server drops the connection with
 * exactly the events missed; the end of the stream when the key is revoked.
 */
const ctx = createTestContext();
let server: Awaited<ReturnType<typeof listen>>;
/** The server side of every events.onEvent request: its Last-Event-ID and its socket. */
const streamRequests: { lastEventId: string | undefined; socket: Socket }[] = [];

beforeAll(async () => {
  server = await listen(ctx.app);
  server.server.on('request', (req: IncomingMessage) => {
    if (!req.url?.startsWith('/api/v1/rpc/events.onEvent')) return;
    streamRequests.push({ lastEventId: req.headers['last-event-id'] as string | undefined, socket: req.socket });
  });
});

afterAll(async () => {
  await server?.close();
  await ctx.close();
});

/**
 * A client whose fetch tells when a stream's answer has arrived (the server answers once the
 * subscription reads from its starting point, so what is written after is never missed), and
 * holds each reconnection until `release()`, so a test can write while no stream is open.
 */
function clientFor(apiKey: string) {
  const opened: (() => void)[] = [];
  let connections = 0;
  let gate: Promise<void> = Promise.resolve();
  let release = () => {};
  const fetchWithHooks: FetchLike = async (url, init) => {
    const stream = init.headers.Accept === 'text/event-stream';
    if (stream) connections += 1;
    if (stream && connections > 1) await gate;
    const res = await fetch(url, init);
    if (stream) opened.splice(0).forEach((wake) => wake());
    return res as unknown as Awaited<ReturnType<FetchLike>>;
  };
  const api: WorkspaceClient = createWorkspaceClient({ baseUrl: server.url, apiKey, fetch: fetchWithHooks, timeoutMs: 10_000 });
  return {
    api,
    /** Stream requests made (the calls of the test beside them are not counted). */
    connections: () => connections,
    /** Resolves when the next stream's answer arrives. */
    nextOpen: () => new Promise<void>((resolve) => opened.push(resolve)),
    holdReconnections() {
      gate = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
  };
}

/** Reads an async iterator one value at a time, with a deadline per value. */
function reader<T>(iterable: AsyncIterable<T>) {
  const iterator = iterable[Symbol.asyncIterator]();
  return {
    async take(n: number, timeoutMs = 5000): Promise<T[]> {
      const out: T[] = [];
      while (out.length < n) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const next = await Promise.race([
          iterator.next(),
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`value ${out.length + 1} of ${n} not within ${timeoutMs} ms`)), timeoutMs))),
        ]).finally(() => clearTimeout(timer));
        if (next.done) throw new Error(`the subscription ended after ${out.length} of ${n}`);
        out.push(next.value);
      }
      return out;
    },
    /** How the iteration ends: the error it throws, or `done`. */
    async end(timeoutMs = 5000): Promise<unknown> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the subscription did not end within ${timeoutMs} ms`);
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          const next = await Promise.race([iterator.next(), new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), left)))]);
          if (next === 'late') continue;
          if (next.done) return 'done';
        } catch (error) {
          return error;
        } finally {
          clearTimeout(timer);
        }
      }
    },
    close: () => iterator.return?.(),
  };
}

async function createTask(api: WorkspaceClient, title: string) {
  return api.tasks.create({ title, dueAt: new Date('2031-03-04T05:06:07.000Z') });
}

describe('events.subscribe (client package)', () => {
  it('receives live events as they commit, typed by type, their date-times as Dates, and only the types asked for', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = clientFor(ws.key);
    const opened = client.nextOpen();
    const events = reader(client.api.events.subscribe({ types: ['task.created', 'task.completed'] }));
    const first = events.take(2);
    await opened;

    const task = await createTask(client.api, unique('Live task'));
    await client.api.leads.create({ name: unique('Not asked for'), phone: '+442079460301' });
    await client.api.tasks.complete({ id: task.id });
    const [created, completed] = await first;

    expect([created!.type, completed!.type]).toEqual(['task.created', 'task.completed']);
    if (created!.type !== 'task.created') throw new Error('narrowed by type');
    expect(created!.data.object).toMatchObject({ id: task.id, title: task.title });
    expect(created!.data.object.dueAt).toEqual(new Date('2031-03-04T05:06:07.000Z'));
    expect(created!.createdAt).toBeInstanceOf(Date);
    // What it yields is what the typed schema describes (Dates as Dates), the same as events.getAll answers.
    expect(typedEventOutput.safeParse(created).error?.issues).toBeUndefined();
    const page = await client.api.events.getAll({ types: ['task.created'] });
    expect(page.data).toEqual([created]);
    await events.close();
  });

  it('resumes after the server drops the connection with exactly the events it missed, then live ones', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = clientFor(ws.key);
    const opened = client.nextOpen();
    const events = reader(client.api.events.subscribe({ types: ['task.created'] }));
    const firstRead = events.take(1);
    await opened;
    const a = await createTask(client.api, unique('A'));
    const [first] = await firstRead;
    expect(first!.data.object.id).toBe(a.id);

    // Cut from the server's side, and keep the client from reconnecting until B and C are written.
    client.holdReconnections();
    const requestsBefore = streamRequests.length;
    streamRequests.at(-1)!.socket.destroy();
    const b = await createTask(client.api, unique('B'));
    const c = await createTask(client.api, unique('C'));
    const caughtUp = events.take(2);
    const reopened = client.nextOpen();
    client.release();
    await reopened;
    const d = await createTask(client.api, unique('D'));
    const [missed1, missed2, live] = [...(await caughtUp), ...(await events.take(1))];

    expect([missed1, missed2, live].map((e) => e!.data.object.id)).toEqual([b.id, c.id, d.id]);
    expect(streamRequests.slice(requestsBefore).map((r) => r.lastEventId)).toEqual([first!.id]);
    expect(client.connections()).toBe(2);
    // Nothing repeated, nothing more: the next value is a later write's.
    const e = await createTask(client.api, unique('E'));
    expect((await events.take(1)).map((x) => x.data.object.id)).toEqual([e.id]);
    await events.close();
  });

  it('ends with UNAUTHORIZED, without reconnecting, within a second or so of its key being revoked', async () => {
    const ws = await createWorkspace(ctx.db);
    const { id: keyId, key } = await createKey(ctx.db, ws.org.id, { scopes: ['events.read', 'tasks.read', 'tasks.create'] });
    const client = clientFor(key);
    const opened = client.nextOpen();
    const events = reader(client.api.events.subscribe());
    const firstRead = events.take(1);
    await opened;
    await createTask(client.api, unique('Before revocation'));
    await firstRead;

    const revokedAt = Date.now();
    await apiKeysQueries.revoke(ctx.db, keyId);
    const ended = await events.end(5000);
    const tookMs = Date.now() - revokedAt;

    expect(ended).toBeInstanceOf(WorkspaceApiError);
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', status: 401, path: 'events.onEvent' });
    expect(client.connections()).toBe(1);
    // The server's target is 1 s; the bound here leaves room for a loaded machine.
    expect(tookMs).toBeLessThan(3000);
  });

  it('fails at once with FORBIDDEN for a key without events.read, before any stream opens', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['tasks.read'] });
    const client = clientFor(key);
    const ended = await reader(client.api.events.subscribe()).end();

    expect(ended).toMatchObject({ name: 'WorkspaceApiError', code: 'FORBIDDEN', status: 403 });
    expect(client.connections()).toBe(1);
  });

  it('streams dashboard.onLeadStats as api.dashboard.onLeadStats: the stats now, then again after a change', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = clientFor(ws.key);
    // A range that ends tomorrow: a lead created now moves it.
    const range = { from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000), timeZone: 'Europe/London' };
    const stats = reader(client.api.dashboard.onLeadStats(range));
    const [now] = await stats.take(1);
    expect(now).toEqual(await client.api.dashboard.getLeadStats(range));

    await client.api.leads.create({ name: unique('Counted'), phone: '+442079460302' });
    const [after] = await stats.take(1);
    expect(after).toEqual(await client.api.dashboard.getLeadStats(range));
    expect(after).not.toEqual(now);
    await stats.close();
  });

  it('closes its connection when the loop is left', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = clientFor(ws.key);
    const opened = client.nextOpen();
    const events = reader(client.api.events.subscribe());
    const read = events.take(1);
    await opened;
    await createTask(client.api, unique('Last'));
    await read;
    const socket = streamRequests.at(-1)!.socket;

    await events.close();
    const deadline = Date.now() + 2000;
    while (!socket.destroyed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(socket.destroyed).toBe(true);
  });
});

// `WorkspaceEvent` is the element type of events.getAll's data, of the stream and of webhooks alike.
export type Checks = [
  Awaited<ReturnType<WorkspaceClient['events']['getAll']>>['data'][number] extends WorkspaceEvent ? true : never,
];
