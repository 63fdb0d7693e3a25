import { randomBase62, toBase62 } from '../domain/base62';
// A flush makes hundreds of ids at once: the ids' pool of random bytes serves them.
import { pooledRandomBytes } from '../domain/ids';

let lastMs = -1;
let sequence = 0;

/**
 * A request's id in the log: `req_`, its time in milliseconds as 8 base62 characters (good until
 * the year 8000), a 3-character sequence within that millisecond (this process's order), then 9
 * random ones. Base62's alphabet is in ASCII order and the column compares byte-wise, so ids sort
 * by time: a key's page is one index range and the cursor is the last id.
 */
export function requestLogId(atMs: number): string {
  sequence = atMs === lastMs ? sequence + 1 : 0;
  lastMs = atMs;
  return `req_${toBase62(atMs, 8)}${toBase62(sequence % 238_328, 3)}${randomBase62(9, pooledRandomBytes)}`;
}

/** What a cursor (`after`) must look like; anything else is a 400, never a statement. */
export const REQUEST_LOG_ID = /^req_[0-9A-Za-z]{20}$/;
