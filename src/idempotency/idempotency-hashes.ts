import { createHash } from 'node:crypto';

/**
 * What makes two calls "the same request": the procedure and the exact body bytes. A NUL
 * separates them; procedure names never contain one.
 */
export function requestFingerprint(procedure: string, body: Buffer): string {
  return createHash('sha256').update(procedure).update('\0').update(body).digest('hex');
}

/**
 * The 64-bit advisory lock id of one key of one caller: the first 8 bytes of a SHA-256. Two
 * keys sharing an id (about 1 in 2^64) would only make one wait for the other with a 409.
 */
export function advisoryLockId(orgId: string, principalId: string, key: string): bigint {
  return createHash('sha256').update(`${orgId}\0${principalId}\0${key}`).digest().readBigInt64BE(0);
}
