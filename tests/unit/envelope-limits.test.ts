import superjson from 'superjson';
import { decodeEnvelope } from '../../src/rpc/envelope';
import { nestsDeeperThan } from '../../src/rpc/json-depth';
import { MAX_JSON_DEPTH } from '../../src/rpc/input-limits';
import { metaFitsJson } from '../../src/rpc/superjson-meta';
import { decodeFailure } from '../helpers/envelope';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('nestsDeeperThan', () => {
  it.each([
    ['a flat object', '{"a":1,"b":[1,2]}', 2, false],
    ['an object at the limit', '{"a":{"b":1}}', 2, false],
    ['an object one level over', '{"a":{"b":[1]}}', 2, true],
    ['brackets inside strings', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote before brackets in a string', '{"a":"\\"[[[["}', 1, false],
    ['an escaped backslash ending a string', '{"a":"\\\\","b":[[1]]}', 2, true],
    ['unbalanced closing brackets', ']]]]]]{', 1, false],
  ])('%s', (_label, text, limit, expected) => {
    expect(nestsDeeperThan(text, limit)).toBe(expected);
  });
});

describe('decodeEnvelope refuses nesting deeper than the limit', () => {
  it(`accepts an envelope nested exactly ${MAX_JSON_DEPTH} levels deep (the envelope counting as one)`, () => {
    expect(decodeEnvelope(`{"json":${nested(MAX_JSON_DEPTH - 1)}}`)).toEqual(expect.any(Array));
  });

  it(`refuses one nested ${MAX_JSON_DEPTH + 1} levels deep with BAD_REQUEST naming the limit`, () => {
    const error = decodeFailure(`{"json":${nested(MAX_JSON_DEPTH)}}`);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toBe(`The envelope nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
  });

  it('refuses a megabyte of "[" as too deep, not as malformed JSON', () => {
    expect(decodeFailure('['.repeat(1024 * 1024)).message).toMatch(/more than 64 levels deep/);
  });

  it('refuses deep nesting inside meta too', () => {
    expect(decodeFailure(`{"json":{},"meta":{"values":${nested(100)}}}`).message).toMatch(/levels deep/);
  });
});

describe('metaFitsJson', () => {
  it.each([
    ['Dates of a superjson client', { at: new Date(0), list: [new Date(1)], none: undefined }],
    ['a Map, a Set and a BigInt', { m: new Map([['k', new Date(2)]]), s: new Set([1n]), n: 2n }],
    ['a value that recurs', (() => { const shared = { a: 1 }; return { x: shared, y: shared }; })()],
    ['the no-input form', undefined],
    ['a key with a dot and a backslash', { 'a.b\\c': new Date(3) }],
  ])('accepts what superjson itself writes: %s', (_label, value) => {
    const { json, meta } = superjson.serialize(value);
    expect(metaFitsJson(json, (meta ?? {}) as Record<string, unknown>)).toBe(true);
    expect(decodeEnvelope(JSON.stringify({ json, meta }))).toEqual(value);
  });

  it.each([
    ['values that are a string', { values: 'zz' }],
    ['values that are a number', { values: 7 }],
    ['a node with three elements', { values: { a: ['Date', {}, 1] } }],
    ['children that are not an object', { values: { a: ['Date', 'x'] } }],
    ['a path to a key that is not there', { values: { 'b.c': ['Date'] } }],
    ['an array index past the end', { values: { list: ['set', { '4294967294': ['undefined'] }] } }],
    ['an array index that is not canonical', { values: { 'list.01': ['Date'] } }],
    ['a path through a string', { values: { 'a.length': ['number'] } }],
    ['a __proto__ path', { values: { '__proto__.polluted': ['Date'] } }],
    ['a constructor.prototype path', { values: { 'constructor.prototype.x': ['Date'] } }],
    ['an invalid escape', { values: { 'a\\x': ['Date'] }, v: 1 }],
    ['referential equalities to a missing path', { referentialEqualities: { a: ['x.y'] } }],
    ['referential equalities that are not lists', { referentialEqualities: { a: 'list' } }],
    ['referential equalities of the root to __proto__', { referentialEqualities: [['__proto__']] }],
    ['a version that is not a number (and cannot even be compared)', { values: { a: ['Date'] }, v: { toString: {} } }],
  ])('refuses %s', (_label, meta) => {
    const json = { a: 'text', list: ['x'] };
    expect(metaFitsJson(json, meta)).toBe(false);
    expect(decodeFailure(JSON.stringify({ json, meta })).message).toBe('Malformed envelope: "meta" does not describe "json"');
  });

  it('lets a missing last key of an object through, as superjson writes undefined fields', () => {
    expect(metaFitsJson({}, { values: { gone: ['undefined'] }, v: 1 })).toBe(true);
  });

  it('refuses a set annotation over a far index without building a sparse array', () => {
    const text = '{"json":{"a":[]},"meta":{"values":{"a":["set",{"4294967294":["undefined"]}]},"v":1}}';
    expect(decodeFailure(text).code).toBe('BAD_REQUEST');
  });
});
