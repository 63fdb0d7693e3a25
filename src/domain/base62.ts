import { randomBytes } from 'node:crypto';

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 characters (rejection sampling, so no character is favoured). */
export function randomBase62(length: number, bytes: (count: number) => Uint8Array = randomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const byte of bytes(length * 2)) {
      if (byte < 248) out += BASE62_ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A non-negative integer in base62, left-padded with '0' to `width` characters. */
export function toBase62(value: number, width: number): string {
  let out = '';
  let n = value;
  do {
    out = BASE62_ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(width, '0');
}
