import { createHash, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomBase62, toBase62 } from './base62';

/**
 * API key secrets: `wsk_` + 34 random base62 characters + 6 base62 characters of the CRC32 of
 * those 34 (the scheme of GitHub's tokens), so scanners can spot a leaked key and a mistyped key
 * is refused without a database lookup. Only a SHA-256 hash is stored: the secret has ~200 bits
 * of entropy, so a slow hash would add latency and no safety.
 */
export const API_KEY_PATTERN = /^wsk_[0-9A-Za-z]{40}$/;
const RANDOM_LENGTH = 34;
/** Characters of the key shown in listings: enough to tell keys apart, far too few to guess the rest. */
const PREFIX_LENGTH = 12;

export interface NewApiKeySecret {
  secret: string;
  prefix: string;
  hash: string;
}

export function generateApiKeySecret(): NewApiKeySecret {
  const random = randomBase62(RANDOM_LENGTH);
  const secret = `wsk_${random}${checksumOf(random)}`;
  return { secret, prefix: secret.slice(0, PREFIX_LENGTH), hash: hashApiKeySecret(secret) };
}

/** True when the secret has the key shape and its checksum matches. */
export function isWellFormedApiKey(secret: string): boolean {
  if (!API_KEY_PATTERN.test(secret)) return false;
  const random = secret.slice(4, 4 + RANDOM_LENGTH);
  return secret.slice(4 + RANDOM_LENGTH) === checksumOf(random);
}

export function hashApiKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

function checksumOf(random: string): string {
  return toBase62(crc32(Buffer.from(random, 'ascii')), 6);
}
