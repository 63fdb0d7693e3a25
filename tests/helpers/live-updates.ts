import { createCacheInvalidation } from '../../src/auth/key-invalidation';
import { createLiveUpdates, type LiveUpdatesOptions } from '../../src/live/live-updates';
import { createNotificationListener, type ListenerOptions } from '../../src/live/notification-listener';
import { createLogger } from '../../src/logger';
import { createTestContext, createTestDb, testDatabaseUrl } from './test-app';
import { rpcPost } from './rpc';
import { listen, openStream } from './sse';

/**
 * Live updates as index.ts wires them: the process's LISTEN connection (not started), the key
 * caches' invalidation heard on it, and the wake-ups, feeds and open streams.
 */
export function wireLiveUpdates(
  options: Omit<LiveUpdatesOptions, 'listener' | 'credentialChanges'> & { databaseUrl: string; listener?: Partial<ListenerOptions> },
) {
  const listener = createNotificationListener({ url: options.databaseUrl, db: options.db, ...options.listener });
  const cacheInvalidation = createCacheInvalidation(listener, options.logger);
  return { ...createLiveUpdates({ ...options, listener, credentialChanges: cacheInvalidation }), listener, cacheInvalidation };
}

/**
 * A test file's app with live updates wired as the service runs them (the LISTEN connection that
 * drops a changed key from every cache at once), listening on a loopback port from beforeAll to
 * afterAll, and what its stream tests call: `lines` (its log), `auth`, `write` (a call that must
 * answer 200), `opened` (a stream past its `connected` frame), `serializedError` (the frame that
 * ends a stream).
 */
export function liveTestApp() {
  const lines: string[] = [];
  const logger = createLogger('info', { destination: { write: (line: string) => void lines.push(line) } } as never);
  const db = createTestDb();
  const liveUpdates = wireLiveUpdates({ db, databaseUrl: testDatabaseUrl(), logger, settings: { pingMs: 10_000, maxDurationMs: 0, recheckMs: 500 } });
  const ctx = createTestContext({ db, live: liveUpdates.live, cacheInvalidation: liveUpdates.cacheInvalidation, logger });
  let listening: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    liveUpdates.listener.start();
    listening = await listen(ctx.app);
    // Trusted for long only once a NOTIFY has come back: wait for it, as a started service does.
    while (!liveUpdates.cacheInvalidation.isLive()) await new Promise((resolve) => setTimeout(resolve, 20));
  });
  afterAll(async () => {
    await listening.close();
    await liveUpdates.stop();
    await liveUpdates.listener.stop();
    await ctx.close();
  });
  const server = {
    get url() {
      return listening.url;
    },
  };
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
  return { ctx, lines, server, auth, write, opened, serializedError };
}
