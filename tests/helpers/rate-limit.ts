import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createLogger, type Logger } from '../../src/logger';
import { createMemoryWindowStore } from '../../src/ratelimit/memory-window-store';
import { createRateLimiter, type RateLimiter } from '../../src/ratelimit/rate-limiter';
import { keyLimitsOf } from '../../src/ratelimit/limits';

/** A limiter with in-memory counters: `perKey` for every tier (the tier defaults when absent). */
export function memoryLimiter(options: { perKey?: number; failedAuth?: number } = {}): RateLimiter {
  return createRateLimiter({
    store: createMemoryWindowStore(),
    logger: createLogger('silent'),
    keyLimits: keyLimitsOf(options.perKey),
    failedAuthLimit: options.failedAuth ?? 0,
  });
}

/** The two draft fields of an answer, read back: the policy and what remains of it. */
export function rateLimitOf(res: { headers: Record<string, string | string[] | undefined> }) {
  const policy = /^"([^"]+)";q=(\d+);w=(\d+)$/.exec(String(res.headers['ratelimit-policy']));
  const state = /^"([^"]+)";r=(\d+);t=(\d+)$/.exec(String(res.headers.ratelimit));
  if (!policy || !state) throw new Error(`no RateLimit fields: ${res.headers['ratelimit-policy']} / ${res.headers.ratelimit}`);
  expect(state[1]).toBe(policy[1]);
  return { name: policy[1]!, q: Number(policy[2]), w: Number(policy[3]), r: Number(state[2]), t: Number(state[3]) };
}

export function expectNoRateLimitFields(res: { headers: Record<string, unknown> }): void {
  expect([res.headers['ratelimit-policy'], res.headers.ratelimit, res.headers['retry-after']]).toEqual([undefined, undefined, undefined]);
}

/** A logger whose lines the test reads (JSON objects). */
export function capturingLogger(): { logger: Logger; lines: () => { level: number; msg: string }[] } {
  const written: string[] = [];
  const logger = createLogger('info', { destination: { write: (line: string) => void written.push(line) } });
  return { logger, lines: () => written.map((line) => JSON.parse(line)) };
}

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Keys of this run only, so runs sharing a Redis never count each other's requests. */
export const uniqueRedisPrefix = () => `wsapi-test:${randomBytes(6).toString('hex')}:`;

/** Whether a PING at `url` answers PONG within half a second (checked in a child, as `describe` is synchronous). */
function redisAnswers(url: string): boolean {
  const { hostname, port } = new URL(url);
  const script = `const s = require('net').connect(Number(process.argv[2]), process.argv[1]);
    s.setTimeout(500, () => process.exit(1)); s.on('error', () => process.exit(1));
    s.on('connect', () => s.write('PING\\r\\n')); s.on('data', (d) => process.exit(String(d).startsWith('+PONG') ? 0 : 1));`;
  return spawnSync(process.execPath, ['-e', script, hostname, port || '6379'], { timeout: 3000 }).status === 0;
}

let redisAnswered: boolean | undefined;

/** `describe` that needs Redis at TEST_REDIS_URL: skipped with a notice when it does not answer (never under CI, which runs Redis). */
export function describeWithRedis(name: string, fn: () => void): void {
  redisAnswered ??= Boolean(process.env.CI) || redisAnswers(TEST_REDIS_URL);
  if (redisAnswered) {
    describe(name, fn);
  } else {
    // eslint-disable-next-line no-console
    console.log(`skipped: Redis does not answer at ${TEST_REDIS_URL} (set TEST_REDIS_URL): ${name}`);
    describe.skip(name, fn);
  }
}
