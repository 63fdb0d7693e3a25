import { createTestContext, createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { createKey, createLead, createMember, createOrg, createWorkspace } from '../helpers/factories';
import { errorOf, rpcPost } from '../helpers/rpc';
import { listen, openStream, subscriptionPath } from '../helpers/sse';
import { testJwtKeys } from '../helpers/test-secrets';
import { wireLiveUpdates } from '../helpers/live-updates';
import { createLogger } from '../../src/logger';
import * as apiKeysQueries from '../../src/db/api-keys';
import { announceCacheChange } from '../../src/db/cache-changes';
import { signPlaygroundToken } from '../../src/auth/playground-token';
import { signStreamToken, STREAM_TOKEN_TTL_SECONDS } from '../../src/auth/stream-token';

// As the service runs: the LISTEN connection that drops a changed key from every cache at once.
const lines: string[] = [];
const logger = createLogger('info', { destination: { write: (line: string) => void lines.push(line) } } as never);
const db = createTestDb();
const liveUpdates = wireLiveUpdates({ db, databaseUrl: testDatabaseUrl(), logger, settings: { pingMs: 10_000, maxDurationMs: 0, recheckMs: 500 } });
const ctx = createTestContext({ db, live: liveUpdates.live, cacheInvalidation: liveUpdates.cacheInvalidation, logger });
let server: Awaited<ReturnType<typeof listen>>;
beforeAll(async () => {
  liveUpdates.listener.start();
  server = await listen(ctx.app);
  // Trusted for long only once a NOTIFY has come back: wait for it, as a started service does.
  while (!liveUpdates.cacheInvalidation.isLive()) await new Promise((resolve) => setTimeout(resolve, 20));
});
afterAll(async () => {
  await server.close();
  await liveUpdates.stop();
  await liveUpdates.listener.stop();
  await ctx.close();
});

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

async function write(key: string, name: string, input: unknown) {
  const res = await rpcPost(ctx.app, name, input, key);
  if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.text}`);
  return res.body.result.data.json;
}

async function opened(path: string, headers: Record<string, string>) {
  const stream = await openStream(server.url, path, headers);
  if (stream.status !== 200) throw new Error(`answered ${stream.status}: ${stream.body()}`);
  expect((await stream.next()).event).toBe('connected');
  return stream;
}

async function serializedError(stream: Awaited<ReturnType<typeof openStream>>, timeoutMs: number) {
  const frame = await stream.nextMessage(timeoutMs);
  expect(frame.event).toBe('serialized-error');
  await stream.ended(1000);
  return JSON.parse(frame.data).json;
}

// A key's scopes change only by an operator's edit of the row (no API changes them): the edit and
// its cache-change NOTIFY are written here directly (src/db/cache-changes.ts, behind src/db's
// entry points), so this check lives in the performance-contract suite.
describe('events.onEvent after a key loses scopes', () => {
  it('stops sending what a key loses within a second of the change, and ends the stream when it loses events.read', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = await createKey(ctx.db, ws.org.id, { scopes: ['events.read', 'contacts.read', 'tasks.read'] });
    const stream = await opened(subscriptionPath('events.onEvent'), auth(key.key));
    await ctx.db('api_keys').where({ org_id: ws.org.id, id: key.id }).update({ scopes: ['events.read', 'tasks.read'] });
    await announceCacheChange(ctx.db, { kind: 'key', orgId: ws.org.id, keyId: key.id });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await write(ws.key, 'contacts.create', { name: 'No longer visible' });
    await write(ws.key, 'tasks.create', { title: 'Still visible' });
    // Catch-up shows an event once every older transaction has ended: this suite's bulk loads
    // (seed bulk, the plans' workspaces) can hold that back for seconds, hence 20 s.
    const { value } = (await stream.values(1, 20_000))[0]!;
    expect(value.type).toBe('task.created');
    await ctx.db('api_keys').where({ org_id: ws.org.id, id: key.id }).update({ scopes: ['tasks.read'] });
    const changedAt = Date.now();
    await announceCacheChange(ctx.db, { kind: 'key', orgId: ws.org.id, keyId: key.id });
    const error = await serializedError(stream, 1500);
    expect(Date.now() - changedAt).toBeLessThan(1000);
    expect(error).toMatchObject({ message: 'missing scope: events.read', data: { code: 'FORBIDDEN', httpStatus: 403, path: 'events.onEvent' } });
  });
});
