import { isIP } from 'node:net';
import { z } from 'zod';

/** Express's `trust proxy`: off, a number of proxy hops, or the proxies' addresses and subnets. */
export type TrustProxy = false | number | string[];

const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrSubnet(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * `TRUST_PROXY`: `false` (default: the client is the socket's peer), a hop count (`1`), or a
 * comma-separated list (`loopback, 10.0.0.0/8`). `true` is refused: it would take the address
 * from X-Forwarded-For whoever sent it, so any client could pick its own.
 */
export const trustProxySetting = z
  .string()
  .default('false')
  .transform((value, ctx): TrustProxy => {
    const text = value.trim();
    if (text === 'false') return false;
    if (/^\d{1,2}$/.test(text)) return Number(text);
    const entries = text.split(',').map((entry) => entry.trim());
    if (text !== 'true' && entries.every(isAddressOrSubnet)) return entries;
    ctx.addIssue({ code: 'custom', message: 'must be false, a hop count, or proxy addresses/subnets (loopback, 10.0.0.0/8, ...)' });
    return z.NEVER;
  });
