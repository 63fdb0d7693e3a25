import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { API_KEY_PATTERN, generateApiKeySecret, hashApiKeySecret, hashesEqual, isWellFormedApiKey } from '../../src/domain/api-key-secret';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The checksum as the key format describes it, computed independently: CRC32 of the 34 random characters, 6 base62 digits. */
function expectedChecksum(random: string): string {
  let n = crc32(Buffer.from(random, 'ascii'));
  let out = '';
  do {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(6, '0');
}

/** The key with the character at `index` replaced by another base62 character. */
function withCharChanged(key: string, index: number): string {
  const current = key[index]!;
  const replacement = ALPHABET[(ALPHABET.indexOf(current) + 1) % 62]!;
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('generateApiKeySecret', () => {
  it('makes wsk_ + 34 random base62 characters + their 6-character CRC32 checksum', () => {
    const { secret } = generateApiKeySecret();

    expect(secret).toMatch(/^wsk_[0-9A-Za-z]{40}$/);
    expect(API_KEY_PATTERN.test(secret)).toBe(true);
    expect(secret.slice(38)).toBe(expectedChecksum(secret.slice(4, 38)));
  });

  it('answers the SHA-256 hex hash and the first 12 characters as the prefix', () => {
    const { secret, prefix, hash } = generateApiKeySecret();

    expect(prefix).toBe(secret.slice(0, 12));
    expect(prefix).toMatch(/^wsk_[0-9A-Za-z]{8}$/);
    expect(hash).toBe(createHash('sha256').update(secret).digest('hex'));
  });

  it('makes a different, well-formed secret every time', () => {
    const secrets = Array.from({ length: 200 }, () => generateApiKeySecret().secret);

    expect(new Set(secrets).size).toBe(200);
    expect(secrets.every(isWellFormedApiKey)).toBe(true);
  });
});

describe('isWellFormedApiKey', () => {
  const { secret } = generateApiKeySecret();

  it('accepts a generated key', () => {
    expect(isWellFormedApiKey(secret)).toBe(true);
  });

  it('rejects a key with any one character of the random part or the checksum changed', () => {
    for (const index of [4, 10, 20, 37, 38, 43]) {
      expect(isWellFormedApiKey(withCharChanged(secret, index))).toBe(false);
    }
  });

  it('rejects two swapped neighbouring characters', () => {
    let i = 4;
    while (secret[i] === secret[i + 1]) i++;
    const swapped = secret.slice(0, i) + secret[i + 1] + secret[i] + secret.slice(i + 2);

    expect(isWellFormedApiKey(swapped)).toBe(false);
  });

  it('rejects a wrong length', () => {
    expect(isWellFormedApiKey(secret.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${secret}0`)).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('rejects a wrong prefix, a non-base62 character and surrounding whitespace', () => {
    expect(isWellFormedApiKey(`wsx_${secret.slice(4)}`)).toBe(false);
    expect(isWellFormedApiKey(`WSK_${secret.slice(4)}`)).toBe(false);
    expect(isWellFormedApiKey(secret.slice(4))).toBe(false);
    expect(isWellFormedApiKey(`${secret.slice(0, 10)}-${secret.slice(11)}`)).toBe(false);
    expect(isWellFormedApiKey(` ${secret}`)).toBe(false);
    expect(isWellFormedApiKey(`${secret}\n`)).toBe(false);
  });
});

describe('hashApiKeySecret and hashesEqual', () => {
  it('hashes with SHA-256 as 64 lowercase hex characters', () => {
    expect(hashApiKeySecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashApiKeySecret(generateApiKeySecret().secret)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('compares hashes: equal only for the same hash, false (not a throw) for a different length', () => {
    const a = hashApiKeySecret('a');

    expect(hashesEqual(a, hashApiKeySecret('a'))).toBe(true);
    expect(hashesEqual(a, hashApiKeySecret('b'))).toBe(false);
    expect(hashesEqual(a, a.slice(0, 62))).toBe(false);
  });
});
