import { addressBucketOf } from '../../src/ratelimit/client-address';
import { rateLimitFields, retryAfterSeconds } from '../../src/ratelimit/header-fields';
import { createMemoryWindowStore } from '../../src/ratelimit/memory-window-store';
import { keyLimitsOf, TIER_LIMITS_PER_MINUTE } from '../../src/ratelimit/limits';
import { ConfigError, loadConfig } from '../../src/config';
import { createFailOpen } from '../../src/ratelimit/fail-open';
import { createLogger } from '../../src/logger';

describe('addressBucketOf (what failed authentications are counted against)', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:0:0:1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
    ['2001:db8:1:2::c000:221', '2001:db8:1:2::/64'],
  ])('puts %s in bucket %s', (ip, bucket) => {
    expect(addressBucketOf(ip)).toBe(bucket);
  });

  it('puts two addresses of one IPv6 /64 in one bucket and of neighbouring /64s in two', () => {
    expect(addressBucketOf('2001:db8:a:b::1')).toBe(addressBucketOf('2001:db8:a:b:ffff:ffff:ffff:ffff'));
    expect(addressBucketOf('2001:db8:a:b::1')).not.toBe(addressBucketOf('2001:db8:a:c::1'));
  });

  it('puts requests of unknown address in one shared bucket', () => {
    expect(addressBucketOf(undefined)).toBe('unknown');
  });
});

describe('rateLimitFields (draft-ietf-httpapi-ratelimit-headers structured fields)', () => {
  it('writes the policy and the remaining quota with seconds to reset rounded up', () => {
    expect(rateLimitFields({ name: 'key', quota: 600, windowSeconds: 60 }, { count: 588, resetMs: 29_001 })).toEqual({
      'RateLimit-Policy': '"key";q=600;w=60',
      RateLimit: '"key";r=12;t=30',
    });
  });

  it('never answers a negative remaining quota past the limit', () => {
    expect(rateLimitFields({ name: 'auth', quota: 3, windowSeconds: 60 }, { count: 9, resetMs: 1000 }).RateLimit).toBe('"auth";r=0;t=1');
  });

  it('asks for a retry after at least one second', () => {
    expect([retryAfterSeconds({ count: 4, resetMs: 0 }), retryAfterSeconds({ count: 4, resetMs: 1 }), retryAfterSeconds({ count: 4, resetMs: 59_500 })]).toEqual([1, 1, 60]);
  });
});

describe('memory window store', () => {
  it('counts a hit with a cost as that many requests', async () => {
    const store = createMemoryWindowStore(() => 1_000_000);
    expect(await store.hit('a', 60_000, 10)).toEqual({ count: 10, resetMs: 60_000 });
    expect(await store.hit('a', 60_000)).toEqual({ count: 11, resetMs: 60_000 });
  });

  it('counts hits in a window that opens with the first hit and starts again once it ends', async () => {
    let now = 1_000_000;
    const store = createMemoryWindowStore(() => now);
    expect(await store.hit('a', 60_000)).toEqual({ count: 1, resetMs: 60_000 });
    now += 20_000;
    expect(await store.hit('a', 60_000)).toEqual({ count: 2, resetMs: 40_000 });
    now += 40_000;
    expect(await store.hit('a', 60_000)).toEqual({ count: 1, resetMs: 60_000 });
  });

  it('keeps the keys apart', async () => {
    const store = createMemoryWindowStore(() => 0);
    await store.hit('a', 60_000);
    await store.hit('a', 60_000);
    expect((await store.hit('b', 60_000)).count).toBe(1);
  });
});

describe('memory window store: authentication attempts', () => {
  it('takes a unit per attempt until failed + pending reach the limit, in the same step as the check', async () => {
    const store = createMemoryWindowStore(() => 0);
    // Not awaited one by one: the checks of simultaneous attempts must not all pass first.
    const attempts = await Promise.all(Array.from({ length: 5 }, () => store.take('a', 3, 60_000)));
    expect(attempts.map((attempt) => attempt.taken)).toEqual([true, true, true, false, false]);
    expect(attempts[4]!.window).toEqual({ failed: 0, pending: 3, resetMs: 60_000 });
  });

  it('keeps the unit of a failed attempt and gives back that of any other, freeing room for the next', async () => {
    const store = createMemoryWindowStore(() => 0);
    const first = await store.take('a', 2, 60_000);
    const second = await store.take('a', 2, 60_000);
    expect(await store.settle('a', first.windowId, true)).toEqual({ failed: 1, pending: 1, resetMs: 60_000 });
    expect(await store.settle('a', second.windowId, false)).toEqual({ failed: 1, pending: 0, resetMs: 60_000 });
    expect((await store.take('a', 2, 60_000)).taken).toBe(true);
    expect((await store.take('a', 2, 60_000)).taken).toBe(false);
  });

  it('never settles into a later window than the one the unit came from', async () => {
    let now = 0;
    const store = createMemoryWindowStore(() => now);
    const old = await store.take('a', 2, 60_000);
    now = 60_000;
    const current = await store.take('a', 2, 60_000);
    expect(await store.settle('a', old.windowId, true)).toEqual({ failed: 0, pending: 1, resetMs: 60_000 });
    expect(await store.settle('a', old.windowId, false)).toEqual({ failed: 0, pending: 1, resetMs: 60_000 });
    expect(await store.settle('a', current.windowId, true)).toEqual({ failed: 1, pending: 0, resetMs: 60_000 });
  });

  it('answers an empty window once it has ended', async () => {
    let now = 0;
    const store = createMemoryWindowStore(() => now);
    const attempt = await store.take('a', 2, 60_000);
    now = 60_000;
    expect(await store.settle('a', attempt.windowId, true)).toEqual({ failed: 0, pending: 0, resetMs: 0 });
    expect((await store.take('a', 2, 60_000)).window).toEqual({ failed: 0, pending: 1, resetMs: 60_000 });
  });
});

describe('per-key limits', () => {
  it('are the tier defaults FREE 60, PRO 600, BUSINESS 1200 unless RATE_LIMIT_PER_MINUTE replaces them all', () => {
    expect(keyLimitsOf(undefined)).toEqual(TIER_LIMITS_PER_MINUTE);
    expect(TIER_LIMITS_PER_MINUTE).toEqual({ FREE: 60, PRO: 600, BUSINESS: 1200 });
    expect(keyLimitsOf(5)).toEqual({ FREE: 5, PRO: 5, BUSINESS: 5 });
  });
});

describe('rate-limit configuration', () => {
  const errorOf = (env: NodeJS.ProcessEnv) => {
    try {
      loadConfig(env);
    } catch (err) {
      return err as Error;
    }
    throw new Error('expected loadConfig to throw');
  };

  it('reads RATE_LIMIT_PER_MINUTE (0 allowed: off) and RATE_LIMIT_FAILED_AUTH_PER_MINUTE', () => {
    expect(loadConfig({}).RATE_LIMIT_PER_MINUTE).toBeUndefined();
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '5' })).toMatchObject({ RATE_LIMIT_PER_MINUTE: 0, RATE_LIMIT_FAILED_AUTH_PER_MINUTE: 5 });
  });

  it.each(['-1', '1.5', 'lots'])('refuses RATE_LIMIT_PER_MINUTE=%s naming the variable', (value) => {
    const err = errorOf({ RATE_LIMIT_PER_MINUTE: value });
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/^Invalid environment variable RATE_LIMIT_PER_MINUTE: /);
  });

  it.each([
    ['false', false],
    ['1', 1],
    ['loopback', ['loopback']],
    ['loopback, 10.0.0.0/8,fd00::/8, 192.0.2.1', ['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.1']],
  ])('reads TRUST_PROXY=%j', (value, parsed) => {
    expect(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY).toEqual(parsed);
  });

  it.each(['true', 'everyone', '10.0.0.0/33', '10.0.0.1/8/2', 'loopback,', '999'])('refuses TRUST_PROXY=%j naming the variable', (value) => {
    expect(errorOf({ TRUST_PROXY: value }).message).toMatch(/^Invalid environment variable TRUST_PROXY: must be false, a hop count/);
  });
});

describe('failing open', () => {
  it('admits (undefined) while the store fails, warns once per outage however many checks fail, and says once when it is back', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = createLogger('info', { destination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
    let now = 0;
    const failOpen = createFailOpen(logger, { pauseMs: 1000, now: () => now });
    const down = () => Promise.reject(new Error('Connection is closed.'));
    const up = () => Promise.resolve('counted');

    for (let i = 0; i < 5; i++) {
      now += 2000; // past each pause, so every check really asks the store
      expect(await failOpen.run(down)).toBeUndefined();
    }
    now += 2000;
    expect(await failOpen.run(up)).toBe('counted');
    now += 2000;
    expect(await failOpen.run(down)).toBeUndefined();

    expect(lines.map((line) => [line.level, line.msg.replace(/;.*/, '')])).toEqual([
      [40, 'rate limits: the counter store is unavailable'],
      [30, 'rate limits: the counter store answers again'],
      [40, 'rate limits: the counter store is unavailable'],
    ]);
  });

  it('does not ask the store again within the pause after a failure', async () => {
    let now = 0;
    let asked = 0;
    const failOpen = createFailOpen(createLogger('silent'), { pauseMs: 1000, now: () => now });
    const check = () => (asked++, Promise.reject(new Error('timeout')));
    await failOpen.run(check);
    now = 999;
    await failOpen.run(check);
    expect(asked).toBe(1);
    now = 1000;
    await failOpen.run(check);
    expect(asked).toBe(2);
  });
});
