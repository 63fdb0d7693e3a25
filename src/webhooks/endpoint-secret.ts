import { randomBase62 } from '../domain/base62';

export const ENDPOINT_SECRET_PREFIX = 'whsec_';

/**
 * A webhook endpoint's signing secret: `whsec_` and 32 base62 characters (about 190 random bits,
 * from node:crypto's randomBytes). The prefix lets secret scanners and people recognise it.
 */
export function newEndpointSecret(): string {
  return `${ENDPOINT_SECRET_PREFIX}${randomBase62(32)}`;
}
