import type { WindowCount } from './window-store';

/** A named quota: `q` requests per `w` seconds (draft-ietf-httpapi-ratelimit-headers). */
export interface Policy {
  name: string;
  quota: number;
  windowSeconds: number;
}

const secondsOf = (ms: number) => Math.ceil(ms / 1000);

/**
 * `RateLimit-Policy: "key";q=600;w=60` and `RateLimit: "key";r=12;t=30` in the draft's
 * structured-field syntax: r is what remains of the quota, t the seconds until it resets.
 */
export function rateLimitFields(policy: Policy, window: WindowCount): Record<string, string> {
  const remaining = Math.max(0, policy.quota - window.count);
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`,
    RateLimit: `"${policy.name}";r=${remaining};t=${secondsOf(window.resetMs)}`,
  };
}

/** Whole seconds to wait, never 0: a client told to retry in 0 s would retry at once. */
export function retryAfterSeconds(window: WindowCount): number {
  return Math.max(1, secondsOf(window.resetMs));
}
