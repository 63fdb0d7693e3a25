import fc from 'fast-check';
import { flatten, jsonType, typesOf, type OpenApiDocument, type Schema, type Validators } from './schema';

/**
 * JSON Schema -> fast-check arbitraries, for the contract test: `valid(schema)` draws values the
 * schema accepts, `invalid(schema)` values it refuses (one thing wrong: a type, a missing required
 * property, an unknown property, a bound, an enum, a pattern, a `not`). Both are checked with ajv
 * on the way out, so a generator that guesses wrong is caught, never sent as the wrong kind.
 */
export interface ArbitraryContext {
  doc: OpenApiDocument;
  validators: Validators;
  /** Ids of real records, read when a value is drawn (the pool grows as the run creates records). */
  realIds: () => readonly string[];
  /** What the document keeps the generator from doing right (reported by the test). */
  problems: Set<string>;
}

const SAFE = Number.MAX_SAFE_INTEGER;
/** Strings no longer than this when the schema sets no maximum (keeps requests small). */
const DEFAULT_MAX_LENGTH = 40;
const codePoints = (s: string) => [...s].length;
const ID_EXAMPLE = /^([a-z][a-z0-9]*_)[A-Za-z0-9]+$/;

const anyJson = fc.jsonValue({ maxDepth: 2 });
/** One value of each JSON type, for "wrong type" mutations. */
const VALUE_OF_TYPE: Record<string, unknown[]> = {
  string: ['a string', ''],
  integer: [7, -1],
  number: [1.5],
  boolean: [true, false],
  null: [null],
  array: [[], [1]],
  object: [{}, { unexpected: 1 }],
};

export function createArbitraries(ctx: ArbitraryContext) {
  const { doc, validators } = ctx;
  const formatSchemas: Record<string, Schema> = {};

  function valid(schema: unknown, name = ''): fc.Arbitrary<unknown> {
    const arb = validUnchecked(schema, name);
    return arb;
  }

  function validUnchecked(input: unknown, name: string): fc.Arbitrary<unknown> {
    const s = flatten(doc, input);
    let arb: fc.Arbitrary<unknown>;
    if ('const' in s) arb = fc.constant(s.const);
    else if (Array.isArray(s.enum)) {
      if (s.enum.length === 0) throw new GeneratorProblem(`an empty enum at ${name || 'the root'}`);
      arb = fc.constantFrom(...s.enum);
    } else if (s.anyOf || s.oneOf) {
      const branches = branchesOf(s);
      arb = fc.oneof(...branches.map((branch) => validUnchecked(branch, name)));
    } else {
      const types = typesOf(s);
      arb = types.length === 0 ? anyJson : fc.oneof(...types.map((type) => ofType(type, s, name)));
    }
    for (const not of s.nots ?? []) arb = bounded(arb, (v) => !validators.isValid(not, v), `${name || 'the root'} (not)`);
    return withExamples(arb, s, input);
  }

  /**
   * The branches of an `anyOf`/`oneOf` with the keywords beside it merged into each. The examples
   * beside it describe the whole (`anyOf: [date, date-time]`, `examples: ['2030-01-31']`): each
   * branch gets those it admits.
   */
  function branchesOf(s: Schema): Schema[] {
    const { anyOf, oneOf, examples = [], ...siblings } = s;
    return ((anyOf ?? oneOf) as unknown[]).map((branch) => {
      const merged: Schema = { allOf: [restore(siblings), branch] };
      const fitting = (examples as unknown[]).filter((e) => validators.isValid(merged, e));
      return fitting.length > 0 ? { allOf: [restore(siblings), branch, { examples: fitting }] } : merged;
    });
  }

  /**
   * Where `value` (valid against `input`) holds a `format: date-time` string: the paths a superjson
   * client may send as Dates. Through refs, allOf, the anyOf branch the value takes, items and properties.
   */
  function dateTimePaths(input: unknown, value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
    const s = flatten(doc, input);
    if (s.anyOf || s.oneOf) {
      const branch = branchesOf(s).find((b) => validators.isValid(b, value));
      if (branch) dateTimePaths(branch, value, path, out);
      return out;
    }
    if (typeof value === 'string' && s.format === 'date-time') out.push(path);
    else if (Array.isArray(value)) value.forEach((item, i) => dateTimePaths(s.items ?? true, item, [...path, i], out));
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        const sub = s.properties?.[key] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : true);
        dateTimePaths(sub, inner, [...path, key], out);
      }
    }
    return out;
  }

  /** Part of the draws come from the schema's `examples` (and from real records for an id). */
  function withExamples(arb: fc.Arbitrary<unknown>, s: Schema, original: unknown): fc.Arbitrary<unknown> {
    const examples = (s.examples ?? []) as unknown[];
    const good = examples.filter((e) => validators.isValid(original, e));
    for (const bad of examples.filter((e) => !good.includes(e))) ctx.problems.add(`example ${JSON.stringify(bad)} is invalid against its own schema`);
    const options: fc.WeightedArbitrary<unknown>[] = [{ weight: 3, arbitrary: arb }];
    if (good.length > 0) options.push({ weight: 1, arbitrary: fc.constantFrom(...good) });
    // An id documented by an example such as `lead_3kTM...`: real ids with that prefix.
    const prefixes = new Set(good.flatMap((e) => (typeof e === 'string' && ID_EXAMPLE.test(e) ? [ID_EXAMPLE.exec(e)![1]!] : [])));
    if (prefixes.size > 0) {
      const real = fc.integer({ min: 0, max: 1e6 }).map((i) => {
        const ids = ctx.realIds().filter((id) => [...prefixes].some((p) => id.startsWith(p)) && validators.isValid(original, id));
        return ids.length > 0 ? ids[i % ids.length]! : good[i % good.length];
      });
      options.push({ weight: 3, arbitrary: real });
    }
    return options.length === 1 ? arb : fc.oneof(...options);
  }

  function ofType(type: string, s: Schema, name: string): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null': return fc.constant(null);
      case 'boolean': return fc.boolean();
      case 'integer': return integers(s);
      case 'number': return fc.oneof(integers(s), doubles(s));
      case 'string': return strings(s, name);
      case 'array': return arrays(s, name);
      case 'object': return objects(s, name);
      default: throw new GeneratorProblem(`unknown type ${JSON.stringify(type)} at ${name || 'the root'}`);
    }
  }

  function integerBounds(s: Schema): [number, number] {
    let min = s.minimum ?? -SAFE;
    let max = s.maximum ?? SAFE;
    if (s.exclusiveMinimum !== undefined) min = Math.max(min, Math.floor(s.exclusiveMinimum) + 1);
    if (s.exclusiveMaximum !== undefined) max = Math.min(max, Math.ceil(s.exclusiveMaximum) - 1);
    return [Math.ceil(Math.max(min, -SAFE)), Math.floor(Math.min(max, SAFE))];
  }

  // Beyond ±(2^53-1) JSON numbers are not interoperable (RFC 7493), so those are the widest bounds.
  function integers(s: Schema): fc.Arbitrary<number> {
    const [min, max] = integerBounds(s);
    if (min > max) throw new GeneratorProblem(`an empty integer range [${min}, ${max}]`);
    const near = (from: number) => fc.integer({ min: Math.max(min, from - 5), max: Math.min(max, from + 5) });
    const step = s.multipleOf;
    const arb = fc.oneof(
      { weight: 2, arbitrary: near(min > -SAFE ? min : max < SAFE ? max : 0) },
      { weight: 1, arbitrary: near(max < SAFE ? max : min > -SAFE ? min + 100 : 100) },
      { weight: 2, arbitrary: fc.integer({ min, max }) },
    );
    return step ? bounded(arb.map((v) => Math.round(v / step) * step), (v) => v >= min && v <= max, 'a multipleOf') : arb;
  }

  function doubles(s: Schema): fc.Arbitrary<number> {
    const min = s.minimum ?? -1e9;
    const max = s.maximum ?? 1e9;
    return bounded(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), (v) => (s.exclusiveMinimum === undefined || v > s.exclusiveMinimum) && (s.exclusiveMaximum === undefined || v < s.exclusiveMaximum) && !Object.is(v, -0), 'a number');
  }

  function strings(s: Schema, name: string): fc.Arbitrary<string> {
    const minLength: number = s.minLength ?? 0;
    const maxLength: number = s.maxLength ?? Math.max(minLength, DEFAULT_MAX_LENGTH);
    const patterns = ((s.patterns ?? []) as string[]).map((p) => new RegExp(p, 'u'));
    const formatSchema = s.format ? formatSchemas[s.format] ??= { type: 'string', format: s.format } : undefined;
    const fits = (v: string) => {
      const n = codePoints(v);
      return n >= minLength && n <= maxLength && patterns.every((p) => p.test(v)) && (!formatSchema || validators.isValid(formatSchema, v));
    };
    const cap = Math.min(maxLength, minLength + DEFAULT_MAX_LENGTH);
    const candidates: fc.Arbitrary<string>[] = [];
    // An email with a pattern (zod's own address syntax, stricter than `format: email`): drawn from the pattern.
    const format = s.format && !(s.format === 'email' && patterns.length > 0) ? formatted(s.format) : undefined;
    if (s.format && !format && !(s.format === 'email' && patterns.length > 0)) {
      // A format no generator knows (`phone`: libphonenumber decides, no pattern can): the schema's own examples.
      const examples = ((s.examples ?? []) as unknown[]).filter((e): e is string => typeof e === 'string' && fits(e));
      if (examples.length === 0) throw new GeneratorProblem(`no example to draw the format ${JSON.stringify(s.format)} from at ${name || 'a value'}`);
      return fc.constantFrom(...examples);
    }
    if (format) candidates.push(format);
    for (const pattern of patterns) {
      const matching = fc.stringMatching(pattern, { maxLength: cap });
      // A formatted value has no whitespace around it, even where the pattern admits some (`^\s*...\s*$`).
      candidates.push(s.format ? matching.map((v) => v.trim()) : matching);
    }
    if (!s.format) {
      for (const unit of ['grapheme-ascii', 'grapheme', 'binary'] as const) candidates.push(fc.string({ unit, minLength, maxLength: cap }));
    }
    // Keep the candidates that can hit the schema at all (a pattern plus a length, say).
    const viable = candidates.filter((arb) => fc.sample(arb, { numRuns: 60, seed: 1 }).some(fits));
    if (viable.length === 0) {
      throw new GeneratorProblem(`no generator finds a string for ${name || 'a value'} (${JSON.stringify({ minLength, maxLength, patterns: s.patterns, format: s.format })})`);
    }
    return bounded(fc.oneof(...viable), fits, `the string ${name || ''}`);
  }

  function formatted(format: string): fc.Arbitrary<string> | undefined {
    const date = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-12-31T23:59:59Z'), noInvalidDate: true });
    switch (format) {
      case 'date-time':
        return fc.oneof(
          date.map((d) => d.toISOString()),
          date.map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
          fc.tuple(date, fc.integer({ min: -12, max: 14 })).map(([d, h]) => {
            const local = new Date(d.getTime() + h * 3600_000).toISOString().slice(0, 19);
            return `${local}${h < 0 ? '-' : '+'}${String(Math.abs(h)).padStart(2, '0')}:00`;
          }),
        );
      case 'date': return date.map((d) => d.toISOString().slice(0, 10));
      case 'email': return fc.emailAddress();
      case 'uri': case 'url': return fc.webUrl();
      case 'uuid': return fc.uuid();
      default: return undefined;
    }
  }

  function arrays(s: Schema, name: string): fc.Arbitrary<unknown[]> {
    const minLength: number = s.minItems ?? 0;
    const maxLength: number = Math.min(s.maxItems ?? minLength + 4, minLength + 4);
    const item = valid(s.items ?? true, `${name}[]`);
    if (s.uniqueItems) return fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
    return fc.array(item, { minLength, maxLength });
  }

  function objects(s: Schema, name: string): fc.Arbitrary<Record<string, unknown>> {
    const properties = (s.properties ?? {}) as Record<string, unknown>;
    const required = new Set<string>(s.required ?? []);
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [key, sub] of Object.entries(properties)) model[key] = valid(sub, name ? `${name}.${key}` : key);
    for (const key of required) model[key] ??= anyJson;
    const record = fc.record(model, { requiredKeys: [...required] as never[] }) as fc.Arbitrary<Record<string, unknown>>;
    const groups = exclusiveGroups(s).map((keys) => keys.filter((key) => !required.has(key))).filter((keys) => keys.length > 0);
    // `not: {required: [a, b]}` (a and b not together): when a draw has them all, one optional one is dropped.
    const base = groups.length === 0 ? record : fc.tuple(record, fc.array(fc.nat(), { minLength: groups.length, maxLength: groups.length })).map(([o, picks]) => {
      const out = { ...o };
      groups.forEach((keys, i) => {
        if (exclusiveGroups(s)[i]!.every((key) => key in out)) delete out[keys[picks[i]! % keys.length]!];
      });
      return out;
    });
    const extra = s.additionalProperties;
    if (extra === false) return base;
    // JSON Schema allows unknown properties unless it says otherwise; now and then send one.
    const value = extra === undefined || extra === true ? anyJson : valid(extra, `${name}.*`);
    const key = bounded(fc.string({ minLength: 1, maxLength: 12 }), (k) => !(k in properties) && k !== '__proto__', 'a property name');
    const extras = fc.option(fc.dictionary(key, value, { minKeys: 1, maxKeys: 2 }), { freq: extra === undefined || extra === true ? 6 : 2, nil: undefined });
    return fc.tuple(base, extras).map(([o, more]) => ({ ...(more ?? {}), ...o }));
  }

  /**
   * The key sets an object may not hold all at once: each `not` that is only `required` (and
   * properties that take anything), as a document writes "give either a or b, not both".
   */
  function exclusiveGroups(s: Schema): string[][] {
    return ((s.nots ?? []) as unknown[]).flatMap((not) => {
      const n = flatten(doc, not);
      const { required, properties = {}, patterns = [], nots = [], description: _d, ...others } = n;
      const trivial = Object.values(properties as Record<string, unknown>).every((p) => p === true || (typeof p === 'object' && p !== null && Object.keys(p).length === 0));
      if (!Array.isArray(required) || required.length < 2 || !trivial || patterns.length > 0 || nots.length > 0 || Object.keys(others).length > 0) return [];
      return [required as string[]];
    });
  }

  /** Values the schema refuses; null when the schema refuses nothing (`{}`, say). */
  function invalid(input: unknown, name = ''): fc.Arbitrary<unknown> | null {
    const s = flatten(doc, input);
    const options: fc.Arbitrary<unknown>[] = [];
    const types = typesOf(s);
    if (s.type !== undefined || 'const' in s || s.enum) {
      const admitted = new Set(types.includes('number') ? [...types, 'integer'] : types);
      const wrong = Object.entries(VALUE_OF_TYPE).filter(([t]) => !admitted.has(t)).flatMap(([, values]) => values);
      if (wrong.length > 0) options.push(fc.constantFrom(...wrong));
    }
    if (Array.isArray(s.enum) || 'const' in s) options.push(fc.constantFrom('NOT_IN_THE_ENUM', 'not-a-listed-value', ''));
    if (types.includes('string')) options.push(...invalidStrings(s));
    if (types.includes('integer') || types.includes('number')) options.push(...invalidNumbers(s, types));
    if (types.includes('array')) options.push(...invalidArrays(s, name));
    if (types.includes('object')) options.push(...invalidObjects(s, name));
    if (s.anyOf || s.oneOf) {
      for (const branch of (s.anyOf ?? s.oneOf) as unknown[]) {
        const arb = safeInvalid(branch, name);
        if (arb) options.push(arb);
      }
    }
    for (const not of s.nots ?? []) {
      try {
        // What the `not` forbids, merged with the rest (its other nots kept): `not: {required: [a, b]}` sends both.
        const others = { ...s, nots: (s.nots as unknown[]).filter((n) => n !== not) };
        options.push(valid({ allOf: [restore(others), not] }, name));
      } catch (e) {
        if (!(e instanceof GeneratorProblem)) throw e;
      }
    }
    if (options.length === 0) return null;
    return bounded(fc.oneof(...options), (v) => v !== undefined && !validators.isValid(input, v), `an invalid ${name || 'value'}`);
  }

  function safeInvalid(schema: unknown, name: string): fc.Arbitrary<unknown> | null {
    try {
      return invalid(schema, name);
    } catch (e) {
      if (e instanceof GeneratorProblem) return null;
      throw e;
    }
  }

  function invalidStrings(s: Schema): fc.Arbitrary<unknown>[] {
    const out: fc.Arbitrary<unknown>[] = [];
    if (s.minLength > 0) out.push(fc.constant('x'.repeat(s.minLength - 1)));
    if (s.maxLength !== undefined) out.push(fc.string({ minLength: s.maxLength + 1, maxLength: s.maxLength + 5 }), fc.constant('x'.repeat(s.maxLength + 1)));
    for (const pattern of (s.patterns ?? []) as string[]) {
      const re = new RegExp(pattern, 'u');
      out.push(bounded(fc.oneof(fc.constantFrom('\u0000', 'a\u0000b', '\ud800', ' ', '!', 'not matching', 'ÿ'), fc.string({ unit: 'binary', maxLength: 10 })), (v) => !re.test(v), `a string against ${pattern}`));
    }
    if (s.format) out.push(fc.constantFrom('not-a-value', '2021-02-30T25:61:00Z', '2021-02-30', 'no@', 'a b'));
    return out;
  }

  function invalidNumbers(s: Schema, types: string[]): fc.Arbitrary<unknown>[] {
    const out: fc.Arbitrary<unknown>[] = [];
    if (s.minimum !== undefined) out.push(fc.integer({ min: Math.max(-SAFE, s.minimum - 1000), max: Math.ceil(s.minimum) - 1 }));
    if (s.maximum !== undefined) out.push(fc.integer({ min: Math.floor(s.maximum) + 1, max: Math.min(SAFE, s.maximum + 1000) }));
    if (s.exclusiveMinimum !== undefined) out.push(fc.constant(s.exclusiveMinimum));
    if (s.exclusiveMaximum !== undefined) out.push(fc.constant(s.exclusiveMaximum));
    if (types.includes('integer') && !types.includes('number')) out.push(fc.constantFrom(1.5, 0.1));
    return out;
  }

  function invalidArrays(s: Schema, name: string): fc.Arbitrary<unknown>[] {
    const out: fc.Arbitrary<unknown>[] = [];
    const item = safeValid(s.items ?? true, `${name}[]`);
    if (item && s.minItems > 0) out.push(fc.array(item, { minLength: s.minItems - 1, maxLength: s.minItems - 1 }));
    if (item && s.maxItems !== undefined) out.push(fc.array(item, { minLength: s.maxItems + 1, maxLength: s.maxItems + 2 }));
    const bad = s.items !== undefined ? safeInvalid(s.items, `${name}[]`) : null;
    if (bad) out.push(fc.tuple(fc.array(item ?? anyJson, { maxLength: 2 }), bad).map(([ok, wrong]) => [...ok, wrong]));
    return out;
  }

  function invalidObjects(s: Schema, name: string): fc.Arbitrary<unknown>[] {
    const base = safeValid(restore(s), name) as fc.Arbitrary<Record<string, unknown>> | null;
    if (!base) return [];
    const objectBase = bounded(base, (v) => jsonType(v) === 'object', `an object ${name}`);
    const out: fc.Arbitrary<unknown>[] = [];
    const required: string[] = s.required ?? [];
    if (required.length > 0) {
      out.push(fc.tuple(objectBase, fc.constantFrom(...required)).map(([o, key]) => {
        const { [key]: _dropped, ...rest } = o;
        return rest;
      }));
    }
    if (s.additionalProperties === false) out.push(objectBase.map((o) => ({ ...o, unexpectedProperty: 'x' })));
    for (const [key, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
      const bad = safeInvalid(sub, name ? `${name}.${key}` : key);
      if (bad) out.push(fc.tuple(objectBase, bad).map(([o, wrong]) => ({ ...o, [key]: wrong })));
    }
    return out;
  }

  function safeValid(schema: unknown, name: string): fc.Arbitrary<unknown> | null {
    try {
      return valid(schema, name);
    } catch (e) {
      if (e instanceof GeneratorProblem) return null;
      throw e;
    }
  }

  return { valid, invalid, dateTimePaths };
}

/** A flattened schema back in standard keywords (its gathered patterns and nots as an allOf). */
function restore(s: Schema): Schema {
  const { patterns = [], nots = [], unmerged = [], ...rest } = s;
  const allOf = [...patterns.map((pattern: string) => ({ pattern })), ...nots.map((not: unknown) => ({ not })), ...unmerged];
  return allOf.length > 0 ? { ...rest, allOf } : rest;
}

/** The document keeps the generator from drawing a valid value (reported, not worked around). */
export class GeneratorProblem extends Error {}

/**
 * `arb.filter(predicate)` that gives up, naming `what`, after many refusals in a row: fast-check's
 * own filter retries forever, and a synchronous loop would hang jest past its timeouts.
 */
export function bounded<T, U extends T = T>(arb: fc.Arbitrary<T>, predicate: ((v: T) => v is U) | ((v: T) => boolean), what: string): fc.Arbitrary<U> {
  let refusedInARow = 0;
  return arb.filter((v): v is U => {
    if (predicate(v)) {
      refusedInARow = 0;
      return true;
    }
    if (++refusedInARow > 2000) throw new GeneratorProblem(`no value found for ${what} after 2000 draws`);
    return false;
  });
}
