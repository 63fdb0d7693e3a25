import { newId } from '../../src/domain/ids';
import { BASE62_ALPHABET } from '../../src/domain/base62';

describe('newId (random bytes drawn from a pool)', () => {
  // 20,000 ids draw 880,000 bytes: the 4 KB pool is refilled about 215 times.
  const ids = Array.from({ length: 20_000 }, () => newId('lead'));

  it('is the prefix, an underscore and 22 base62 characters', () => {
    for (const id of ids) expect(id).toMatch(/^lead_[0-9A-Za-z]{22}$/);
  });

  it('never repeats, across many refills of the pool', () => {
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('uses every character about equally often', () => {
    const counts = new Map<string, number>();
    for (const id of ids) for (const ch of id.slice(5)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(BASE62_ALPHABET.length);
    const expected = (ids.length * 22) / 62; // about 7,100 each
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.1);
  });
});
