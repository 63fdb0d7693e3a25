import fc from 'fast-check';
import superjson from 'superjson';
import { encodeResult } from '../../src/rpc/envelope';
import { outputMetaOf } from '../../src/rpc/output-meta';

/**
 * The success envelope is written without superjson's serialize for plain values with Dates
 * (src/rpc/output-meta.ts). Whatever a handler returns, its text must be exactly superjson's.
 */
const text = (value: unknown) => JSON.stringify(encodeResult(value).result.data);
const superjsonText = (value: unknown) => JSON.stringify(superjson.serialize(value));

/** Keys superjson escapes or refuses, and integer-like keys (ordered first by JavaScript). */
const key = fc.oneof(fc.string(), fc.constantFrom('a.b', 'a\\b', '.', '\\.', '0', '10', '1.5', 'createdAt', '__proto__', 'constructor'));
const date = fc.oneof(fc.date({ noInvalidDate: true }), fc.date());

const { value: outputLike } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(), fc.boolean(), fc.constant(null), fc.double(), fc.integer(), date,
    fc.constantFrom(undefined, -0, NaN, Infinity, 10n, new Map([[1, 2]]), new Set([1]), /x/g),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
}));

function superjsonThrows(value: unknown): boolean {
  try {
    superjson.serialize(value);
    return false;
  } catch {
    return true;
  }
}

describe('encodeResult writes what superjson would', () => {
  it('for any value, the same JSON text, or the same refusal (prototype-polluting keys)', () => {
    fc.assert(
      fc.property(outputLike, (value) => {
        if (superjsonThrows(value)) expect(() => text(value)).toThrow();
        else expect(text(value)).toBe(superjsonText(value));
      }),
      { numRuns: 5000, seed: 20261124 },
    );
  });

  it('for the objects of the anything arbitrary (null prototypes, boxed values, sparse arrays)', () => {
    const anything = fc.anything({
      withDate: true, withMap: true, withSet: true, withBigInt: true, withNullPrototype: true,
      withBoxedValues: true, withSparseArray: true, withObjectString: true, withTypedArray: true,
    });
    fc.assert(
      fc.property(anything, (value) => {
        fc.pre(!superjsonThrows(value));
        expect(text(value)).toBe(superjsonText(value));
      }),
      { numRuns: 5000, seed: 20261124 },
    );
  });

  it('takes the fast path for a lead-shaped answer, and leaves shared objects to superjson', () => {
    const at = new Date('2026-11-24T08:00:00.000Z');
    const lead = { id: 'lead_1', phones: ['+447400000001'], createdAt: at, updatedAt: new Date(at), nextCallAt: null, n: 1.5 };
    expect(outputMetaOf(lead)).toEqual({ values: { createdAt: ['Date'], updatedAt: ['Date'] }, v: 1 });
    expect(outputMetaOf({ items: [lead, lead] })).toBe(false);
    expect(outputMetaOf({ createdAt: at, updatedAt: at })).toBe(false);
    expect(text({ items: [lead, lead] })).toBe(superjsonText({ items: [lead, lead] }));
    expect(JSON.parse(text({ items: [lead, lead] })).meta.referentialEqualities).toBeDefined();
  });
});
