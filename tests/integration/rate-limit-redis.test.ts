import request from 'supertest';
import { Redis } from 'ioredis';
import { createTestContext, type TestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { rpcGet } from '../helpers/rpc';
import { expectRpcError } from '../helpers/rpc-edge-fixtures';
import { capturingLogger, describeWithRedis, expectNoRateLimitFields, rateLimitOf, TEST_REDIS_URL, uniqueRedisPrefix } from '../helpers/rate-limit';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createRateLimiterFromConfig } from '../../src/ratelimit/rate-limiter-from-config';
import { sleep } from '../helpers/server-process';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * Counters in Redis (REDIS_URL): instances share one budget; when Redis is down or goes away
 * the service keeps serving (fails open), says so once, and counts again when Redis is back.
 */

const UNAVAILABLE = /counter store is unavailable/;
const BACK = /counter store answers again/;

async function instance(env: Record<string, string>, prefix: string, logger = createLogger('silent')): Promise<TestContext> {
  const limiter = await createRateLimiterFromConfig(loadConfig(env), logger, { redisKeyPrefix: prefix });
  return createTestContext({ rateLimiter: limiter, trustProxy: ['loopback'] });
}

describeWithRedis('two instances on one Redis', () => {
  const prefix = uniqueRedisPrefix();
  const env = { REDIS_URL: TEST_REDIS_URL, RATE_LIMIT_PER_MINUTE: '4', RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '3' };
  let a: TestContext;
  let b: TestContext;
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  beforeAll(async () => {
    a = await instance(env, prefix);
    b = await instance(env, prefix);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    redis.disconnect();
  });

  it('share one budget per key: calls alternating between them count down one r, and both refuse the fifth', async () => {
    const ws = await createWorkspace(a.db);
    const answers = [];
    for (const app of [a.app, b.app, a.app, b.app]) answers.push(await rpcGet(app, 'leads.getAll', {}, ws.key));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((res) => rateLimitOf(res).r)).toEqual([3, 2, 1, 0]);

    expectRpcError(await rpcGet(b.app, 'leads.getAll', {}, ws.key), 'TOO_MANY_REQUESTS', 'leads.getAll');
    const refused = await rpcGet(a.app, 'leads.getAll', {}, ws.key);
    expectRpcError(refused, 'TOO_MANY_REQUESTS', 'leads.getAll');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('count an export as ten requests in the shared budget (INCRBY its cost)', async () => {
    const ws = await createWorkspace(a.db);
    const limited = await instance({ ...env, RATE_LIMIT_PER_MINUTE: '25' }, uniqueRedisPrefix());
    try {
      const first = await request(limited.app).get('/api/v1/leads/export').set('Authorization', `Bearer ${ws.key}`);
      const list = await request(limited.app).get('/api/v1/leads').set('Authorization', `Bearer ${ws.key}`);
      expect([first.status, rateLimitOf(first).r]).toEqual([200, 15]);
      expect([list.status, rateLimitOf(list).r]).toEqual([200, 14]);
    } finally {
      await limited.close();
    }
  });

  it('keep each counter under the run\'s prefix with a TTL of at most the window', async () => {
    const ws = await createWorkspace(a.db);
    await rpcGet(a.app, 'leads.getAll', {}, ws.key);
    const key = `${prefix}key:apiKey:${ws.keyId}`;
    expect(await redis.get(key)).toBe('1');
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('share the failed-authentication budget of an address', async () => {
    const ws = await createWorkspace(a.db);
    const address = '203.0.113.77';
    const guess = (app: typeof a.app) => rpcGet(app, 'leads.getAll', {}, 'wsk_guess').set('X-Forwarded-For', address);
    const failures = [await guess(a.app), await guess(b.app), await guess(a.app)];
    expect(failures.map((res) => rateLimitOf(res).r)).toEqual([2, 1, 0]);
    expect((await rpcGet(b.app, 'leads.getAll', {}, ws.key).set('X-Forwarded-For', address)).status).toBe(429);
  });
});

/** Redis behind a TCP proxy the test can cut, silence and restore. */
async function proxiedRedis(): Promise<TcpProxy> {
  const { hostname, port } = new URL(TEST_REDIS_URL);
  return startTcpProxy({ host: hostname, port: Number(port || 6379) });
}

describeWithRedis('Redis going away and coming back', () => {
  const log = capturingLogger();
  let proxy: TcpProxy;
  let ctx: TestContext;
  beforeAll(async () => {
    proxy = await proxiedRedis();
    ctx = await instance({ REDIS_URL: proxy.urlFor(TEST_REDIS_URL), RATE_LIMIT_PER_MINUTE: '100' }, uniqueRedisPrefix(), log.logger);
  });
  afterAll(async () => {
    await ctx.close();
    await proxy.close();
  });

  it('serves every call while Redis is gone, warns once, and counts again (from where it was) once Redis is back', async () => {
    const ws = await createWorkspace(ctx.db);
    expect(rateLimitOf(await rpcGet(ctx.app, 'leads.getAll', {}, ws.key)).r).toBe(99);

    await proxy.refuse();
    for (let i = 0; i < 5; i++) {
      const res = await rpcGet(ctx.app, 'leads.getAll', {}, ws.key);
      expect(res.status).toBe(200);
      expectNoRateLimitFields(res);
    }
    const warnings = () => log.lines().filter((line) => UNAVAILABLE.test(line.msg));
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]!.level).toBe(40);

    await proxy.restore();
    let res = await rpcGet(ctx.app, 'leads.getAll', {}, ws.key);
    for (let attempt = 0; attempt < 100 && res.headers.ratelimit === undefined; attempt++) {
      await sleep(100); // the client reconnects in the background
      res = await rpcGet(ctx.app, 'leads.getAll', {}, ws.key);
      expect(res.status).toBe(200);
    }
    // The calls admitted during the outage were not counted; the count before it was kept.
    expect(rateLimitOf(res).r).toBe(98);
    expect(log.lines().filter((line) => BACK.test(line.msg))).toHaveLength(1);
    expect(warnings()).toHaveLength(1);
  });
});

describeWithRedis('Redis connected but not answering', () => {
  const log = capturingLogger();
  let proxy: TcpProxy;
  let ctx: TestContext;
  beforeAll(async () => {
    proxy = await proxiedRedis();
    ctx = await instance({ REDIS_URL: proxy.urlFor(TEST_REDIS_URL), RATE_LIMIT_PER_MINUTE: '1' }, uniqueRedisPrefix(), log.logger);
  });
  afterAll(async () => {
    await ctx.close();
    await proxy.close();
  });

  it('serves every call past the limit once the check times out, and warns once', async () => {
    const ws = await createWorkspace(ctx.db);
    proxy.silence();
    for (let i = 0; i < 3; i++) {
      const res = await rpcGet(ctx.app, 'leads.getAll', {}, ws.key);
      expect(res.status).toBe(200);
      expectNoRateLimitFields(res);
    }
    const warnings = log.lines().filter((line) => UNAVAILABLE.test(line.msg));
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toMatch(/timed out/i);
  });
});

describe('REDIS_URL pointing at a closed port', () => {
  const log = capturingLogger();
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await instance({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '2' }, uniqueRedisPrefix(), log.logger);
  });
  afterAll(() => ctx.close());

  it('serves every call past the limit (fails open) with no RateLimit fields, and logs the outage once', async () => {
    const ws = await createWorkspace(ctx.db);
    for (let i = 0; i < 5; i++) {
      const res = await rpcGet(ctx.app, 'leads.getAll', {}, ws.key);
      expect(res.status).toBe(200);
      expectNoRateLimitFields(res);
    }
    for (let i = 0; i < 5; i++) expect((await rpcGet(ctx.app, 'leads.getAll', {}, 'wsk_guess')).status).toBe(401);
    const warnings = log.lines().filter((line) => UNAVAILABLE.test(line.msg));
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).not.toMatch(/wsk_/);
  });
});
