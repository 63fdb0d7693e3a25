import { AppError } from '../errors/app-error';
import type { Logger } from '../logger';
import type { OrgTier } from '../db/queries/orgs.queries';
import type { Principal } from '../auth/principal';
import type { WindowCount, WindowStore } from './window-store';
import { createFailOpen, type FailOpen } from './fail-open';
import { rateLimitFields, retryAfterSeconds, type Policy } from './header-fields';
import { addressBucketOf } from './client-address';
import { WINDOW_SECONDS } from './limits';

/** One call's rate limits, bound to its client address and to where its header fields go. */
export interface CallLimits {
  /** Before authentication: an address past its failed-authentication budget gets 429 before its key is looked at. */
  checkAddress(): Promise<void>;
  /** Counts a 401 against the address. */
  countFailedAuthentication(): Promise<void>;
  /** After authentication: counts the call against the key's budget; 429 past it. */
  consume(principal: Principal): Promise<void>;
}

export interface RateLimiter {
  forCall(clientAddress: string | undefined, setFields: (fields: Record<string, string>) => void): CallLimits;
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
    forCall(clientAddress, setFields) {
      const addressKey = `auth:${addressBucketOf(clientAddress)}`;
      return {
        async checkAddress() {
          if (failedAuthLimit === 0) return;
          const window = await failOpen.run(() => store.peek(addressKey));
          if (!window || window.count < failedAuthLimit) return;
          setFields(rateLimitFields(authPolicy, window));
          throw tooManyRequests(`Too many failed authentications from this address: retry in ${retryAfterSeconds(window)} s`, window);
        },
        async countFailedAuthentication() {
          if (failedAuthLimit === 0) return;
          const window = await failOpen.run(() => store.hit(addressKey, windowMs));
          if (window) setFields(rateLimitFields(authPolicy, window));
        },
        async consume(principal) {
          const policy: Policy = { name: 'key', quota: keyLimits[principal.org.tier], windowSeconds: WINDOW_SECONDS };
          const window = await failOpen.run(() => store.hit(`key:${principal.kind}:${principal.id}`, windowMs));
          if (!window) return;
          setFields(rateLimitFields(policy, window));
          if (window.count <= policy.quota) return;
          const who = principal.kind === 'apiKey' ? 'this API key' : 'this playground token';
          throw tooManyRequests(`Rate limit of ${policy.quota} requests per minute reached for ${who}: retry in ${retryAfterSeconds(window)} s`, window);
        },
      };
    },
    close: () => store.close(),
  };
}

function tooManyRequests(message: string, window: WindowCount): AppError {
  return new AppError('TOO_MANY_REQUESTS', message, { headers: { 'Retry-After': String(retryAfterSeconds(window)) } });
}
