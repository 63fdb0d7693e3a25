import { AppError } from '../errors/app-error';
import type { Logger } from '../logger';
import type { OrgTier } from '../db/orgs';
import type { Principal } from '../auth/principal';
import type { AttemptCount, WindowCount, WindowStore } from './window-store';
import { createFailOpen, type FailOpen } from './fail-open';
import { rateLimitFields, retryAfterSeconds, type Policy } from './header-fields';
import { addressBucketOf } from './client-address';
import { WINDOW_SECONDS } from './limits';

/** An authentication attempt holding a unit of its address's failed-authentication budget. */
export interface AuthenticationAttempt {
  /** A 401: the unit stays taken until the window ends. */
  failed(): Promise<void>;
  /** Anything else (success, 403, 500): the unit is given back, so only 401s count against the address. */
  giveBack(): Promise<void>;
}

/** One call's rate limits, bound to its client address and to where its header fields go. */
export interface CallLimits {
  /**
   * Before authentication: takes a unit of the address's failed-authentication budget, in the
   * same atomic step that checks it, so concurrent attempts cannot look up more keys than the
   * budget. 429 when failed and in-flight attempts have spent it.
   */
  beginAuthentication(): Promise<AuthenticationAttempt>;
  /** After authentication: counts the call against the key's budget; 429 past it. */
  consume(principal: Principal): Promise<void>;
}

export interface RateLimiter {
  /** `cost`: how many requests the call counts as against its key's budget (1 unless given; an export is one expensive call). */
  forCall(clientAddress: string | undefined, setFields: (fields: Record<string, string>) => void, cost?: number): CallLimits;
  /** Counts one request against another budget (`key`) in the same store, shared as the limits are; undefined when it fails open. */
  hit(key: string, windowMs: number): Promise<WindowCount | undefined>;
  close(): Promise<void>;
}

export interface RateLimiterOptions {
  store: WindowStore;
  logger: Logger;
  /** Requests per window per API key or playground token, by the workspace's tier. */
  keyLimits: Readonly<Record<OrgTier, number>>;
  /** Failed authentications per window per client address; 0 for no such limit. */
  failedAuthLimit: number;
  /** Shared with whatever else reports store failures (Redis unreachable at start). */
  failOpen?: FailOpen;
}

/** Counts each call in a fixed 60-second window and sets the draft's RateLimit fields on its answer. */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const { store, keyLimits, failedAuthLimit } = options;
  const failOpen = options.failOpen ?? createFailOpen(options.logger);
  const windowMs = WINDOW_SECONDS * 1000;
  const authPolicy: Policy = { name: 'auth', quota: failedAuthLimit, windowSeconds: WINDOW_SECONDS };

  return {
    forCall(clientAddress, setFields, cost = 1) {
      // Not `auth:`, the string counter of earlier versions: a hash under that name would clash with it in Redis.
      const addressKey = `auth-attempts:${addressBucketOf(clientAddress)}`;
      return {
        async beginAuthentication() {
          if (failedAuthLimit === 0) return UNCOUNTED;
          const started = Date.now();
          let attempt = await failOpen.run(() => store.take(addressKey, failedAuthLimit, windowMs));
          // Attempts still in flight hold the rest of the budget but settle within moments (a
          // valid key gives its unit back): wait for them, so a burst of valid calls from one
          // address is served, and only a budget spent by failures is refused outright.
          for (let pause = 5; attempt && !attempt.taken && attempt.window.failed < failedAuthLimit && Date.now() - started < IN_FLIGHT_WAIT_MS; pause = Math.min(pause * 2, 100)) {
            await sleep(pause);
            attempt = await failOpen.run(() => store.take(addressKey, failedAuthLimit, windowMs));
          }
          if (!attempt) return UNCOUNTED;
          if (!attempt.taken) {
            const { failed, pending, resetMs } = attempt.window;
            if (failed >= failedAuthLimit) {
              const window = { count: failed, resetMs };
              setFields(rateLimitFields(authPolicy, window));
              throw tooManyRequests(`Too many failed authentications from this address: retry in ${retryAfterSeconds(window)} s`, window);
            }
            // Still held after the wait: the client is told to retry in a second, not when the window ends.
            const window = { count: failed + pending, resetMs: Math.min(resetMs, 1000) };
            setFields(rateLimitFields(authPolicy, window));
            throw tooManyRequests('Too many authentications in flight from this address: retry in 1 s', window);
          }
          const settle = (failed: boolean) => failOpen.run(() => store.settle(addressKey, attempt.windowId, failed));
          return {
            async failed() {
              const window = await settle(true);
              if (window) setFields(rateLimitFields(authPolicy, failedCount(window)));
            },
            async giveBack() {
              await settle(false);
            },
          };
        },
        async consume(principal) {
          const policy: Policy = { name: 'key', quota: keyLimits[principal.org.tier], windowSeconds: WINDOW_SECONDS };
          const window = await failOpen.run(() => store.hit(`key:${principal.kind}:${principal.id}`, windowMs, cost));
          if (!window) return;
          setFields(rateLimitFields(policy, window));
          if (window.count <= policy.quota) return;
          const who = principal.kind === 'apiKey' ? 'this API key' : 'this playground token';
          throw tooManyRequests(`Rate limit of ${policy.quota} requests per minute reached for ${who}: retry in ${retryAfterSeconds(window)} s`, window);
        },
      };
    },
    hit: (key, windowMs) => failOpen.run(() => store.hit(key, windowMs)),
    close: () => store.close(),
  };
}

/** How long an attempt waits for the address's attempts in flight to settle before a 429. */
const IN_FLIGHT_WAIT_MS = 2000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const UNCOUNTED: AuthenticationAttempt = { failed: async () => undefined, giveBack: async () => undefined };

/** What the fields of a 401 show: the failures, not the attempts still in flight. */
const failedCount = (window: AttemptCount): WindowCount => ({ count: window.failed, resetMs: window.resetMs });

function tooManyRequests(message: string, window: WindowCount): AppError {
  return new AppError('TOO_MANY_REQUESTS', message, { headers: { 'Retry-After': String(retryAfterSeconds(window)) } });
}
