/**
 * The rate-limit header fields (src/ratelimit), documented on the 429 answer. Every answer of
 * an action endpoint or the REST list after authentication carries the first two as well.
 */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description:
      'The quota (draft-ietf-httpapi-ratelimit-headers): `"key";q=<requests>;w=60` per API key or playground ' +
      'token (by tier: FREE 60, PRO 600, BUSINESS 1200 a minute), or `"auth";q=<failures>;w=60` for failed ' +
      'authentications from one client address.',
    schema: { type: 'string' },
    example: '"key";q=1200;w=60',
  },
  RateLimit: {
    description: 'What remains: `r` requests of the quota, `t` seconds until it resets.',
    schema: { type: 'string' },
    example: '"key";r=0;t=30',
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } },
};
