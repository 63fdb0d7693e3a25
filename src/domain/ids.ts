import { randomFillSync } from 'node:crypto';
import { randomBase62 } from './base62';

/** Prefixes make an id say what it points at, as Stripe's do (`lead_...`, `key_...`). */
export type IdPrefix = 'org' | 'mem' | 'con' | 'lead' | 'cli' | 'task' | 'inv' | 'line' | 'key' | 'call' | 'evt' | 'wh' | 'dlv' | 'imp' | 'hist' | 'era';

/**
 * Random bytes for ids, drawn from a pool refilled 4 KB at a time: a randomBytes call costs about
 * 2 us, and a create makes four ids. Ids are not secrets (keys and webhook secrets draw their own
 * bytes), so bytes waiting in the pool reveal nothing.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;

export function pooledRandomBytes(count: number): Uint8Array {
  if (used + count > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += count;
  return pool.subarray(used - count, used);
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22, pooledRandomBytes)}`;
}
