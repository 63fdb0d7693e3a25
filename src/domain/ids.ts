import { randomBase62 } from './base62';

/** Prefixes make an id say what it points at, as Stripe's do (`lead_...`, `key_...`). */
export type IdPrefix = 'org' | 'mem' | 'con' | 'lead' | 'cli' | 'task' | 'inv' | 'line' | 'key' | 'call' | 'evt' | 'wh' | 'dlv';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}
