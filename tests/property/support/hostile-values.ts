import fc from 'fast-check';

/**
 * The raw material of hostile inputs: strings with characters that break naive code (NUL, lone
 * surrogates, direction marks, quotes, SQL and template syntax), numbers written as strings,
 * extreme numbers and Dates, keys that name prototypes, and values of every JSON type.
 */

export const ODD_CHARACTERS = [
  '\u0000', '\ud800', '\udfff', '\udc00\ud800', '\u202e', '\u200f', '\u200b', '\ufeff', '\uffff', '\ufffe',
  '\u0301', '\u2028', '\u2029', '😀', '👩‍👩‍👧', '𝕏', 'Ω', 'ß', 'İ', '\\', '"', "'", '`', '%', '_', '\n', '\r\n', '\t',
  '${}', '{{x}}', '<script>', "'; drop table leads; --", '$1', '?', ':name', '\u0085',
];

export const NUMBER_LIKE_STRINGS = ['0', '-1', '1.5', '1e309', '-0', 'NaN', 'Infinity', '0x10', '  7 ', '10000000000000000000000', 'true', 'null', '[]', '{}'];

export const DATE_LIKE_STRINGS = [
  '2030-01-01', '2030-01-01T00:00:00Z', '2030-01-01T00:00:00', '2030-02-30T00:00:00Z', '2030-13-45T99:99:99Z',
  '+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '0000-01-01T00:00:00Z', 'Invalid Date', '1700000000000',
];

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__'];

const oddString = fc.array(fc.constantFrom(...ODD_CHARACTERS), { minLength: 1, maxLength: 12 }).map((parts) => parts.join(''));
const loneSurrogates = fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 4 });

/** One character over each maximum length the schemas use (40, 64, 200, 320, 500, 1000, 10000), in 1- to 4-byte characters. */
const overlongString = fc
  .tuple(fc.constantFrom('x', 'é', '😀', '\u0000', "'"), fc.constantFrom(41, 65, 201, 321, 501, 1_001, 1_001, 10_001))
  .map(([c, n]) => c.repeat(n));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 3, arbitrary: oddString },
  { weight: 1, arbitrary: loneSurrogates },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBER_LIKE_STRINGS, ...DATE_LIKE_STRINGS, ...PROTOTYPE_KEYS, '', ' ') },
  { weight: 1, arbitrary: overlongString },
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 1.5, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, Number.MAX_SAFE_INTEGER + 2, 5e-324),
);

/** Dates superjson carries as such: ordinary, at the ends of the JavaScript range, and invalid. */
export const hostileDate: fc.Arbitrary<Date> = fc.oneof(
  fc.date({ noInvalidDate: false }),
  fc.constantFrom(new Date(8.64e15), new Date(-8.64e15), new Date(Number.NaN), new Date(Date.UTC(-1, 0, 1)), new Date(0)),
);

export const hostileKey: fc.Arbitrary<string> = fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS, '', ' ', 'a.b', '0'), fc.string({ maxLength: 8 }));

/** An object that really has `key` as an own property, even `__proto__` (assignment would set the prototype instead). */
export function objectFromEntries(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** Any value of any type, nested a little: what a caller sends where it should not. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    hostileDate,
    fc.bigInt(),
    fc.constant(undefined),
    fc.array(hostileString, { maxLength: 3 }).map((items) => new Set(items)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 4 }).map(objectFromEntries),
  ),
})).value;
