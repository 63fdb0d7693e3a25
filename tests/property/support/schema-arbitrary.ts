import fc from 'fast-check';
import { hostileDate, hostileString, hostileValue, objectFromEntries, hostileKey } from './hostile-values';

type JsonSchema = Record<string, unknown>;

/** Values known to name something in the workspace, so that some generated calls reach the handler's queries. */
export interface KnownValues {
  ids: string[];
}

/**
 * Inputs shaped like a procedure's JSON Schema (its `io: 'input'` side). Half are hostile (any
 * field may hold a value of the wrong type, required fields go missing, unknown ones appear); half
 * keep the shape, with odd strings, overlong ones and extreme Dates in it, so many pass validation
 * and reach the handler and its queries.
 */
export function inputArbitrary(schema: JsonSchema, known: KnownValues): fc.Arbitrary<unknown> {
  return fc.oneof(nodeArbitrary(schema, '', { known, hostile: true }), nodeArbitrary(schema, '', { known, hostile: false }));
}

interface Mode {
  known: KnownValues;
  hostile: boolean;
}

function nodeArbitrary(schema: JsonSchema, name: string, mode: Mode): fc.Arbitrary<unknown> {
  if (!mode.hostile) return fittingArbitrary(schema, name, mode);
  return fc.oneof({ weight: 6, arbitrary: fittingArbitrary(schema, name, mode) }, { weight: 1, arbitrary: hostileValue });
}

function fittingArbitrary(schema: JsonSchema, name: string, mode: Mode): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as JsonSchema[]).map((s) => fittingArbitrary(s, name, mode)));
  if (Array.isArray(schema.enum)) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...schema.enum) }, { weight: 1, arbitrary: hostileString });
  switch (schema.type) {
    case 'object':
      return objectArbitrary(schema, mode);
    case 'array':
      return fc.array(nodeArbitrary((schema.items ?? {}) as JsonSchema, name, mode), { maxLength: Math.min(Number(schema.maxItems ?? 5), 5) });
    case 'integer':
    case 'number':
      return fc.oneof(
        fc.integer({ min: Number(schema.minimum ?? -1_000_000), max: Number(schema.maximum ?? 1_000_000) }),
        fc.constantFrom(0, -1, 1.5, 2 ** 53, 1e308),
        fc.constantFrom('1', '2', '-1'),
      );
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string':
      return stringArbitrary(schema, name, mode.known);
    default:
      return hostileDate;
  }
}

function objectArbitrary(schema: JsonSchema, mode: Mode): fc.Arbitrary<unknown> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const required = new Set((schema.required ?? []) as string[]);
  const fields = properties.map(([key, inner]) =>
    fc.tuple(fc.constant(key), nodeArbitrary(inner, key, mode), fc.integer({ min: required.has(key) && !mode.hostile ? 1 : 0, max: required.has(key) ? 19 : 1 })),
  );
  // An optional field is given one time in two; in hostile mode a required one is left out one
  // time in twenty and one object in five carries unknown fields.
  const extra = fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 2 });
  return fc.tuple(fc.tuple(...fields), extra, fc.integer({ min: 0, max: 4 })).map(([given, unknown, extraRoll]) =>
    objectFromEntries([
      ...given.filter(([key, , roll]) => (required.has(key) ? roll > 0 : roll === 0)).map(([key, value]) => [key, value] as const),
      ...(extraRoll === 0 && mode.hostile ? unknown : []),
    ]),
  );
}

function stringArbitrary(schema: JsonSchema, name: string, known: KnownValues): fc.Arbitrary<unknown> {
  const max = Number(schema.maxLength ?? 50);
  const plain = fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength: Number(schema.minLength ?? 0), maxLength: Math.min(max, 40) }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: max + 1, maxLength: max + 3 }) },
    { weight: 2, arbitrary: hostileString },
  );
  if (schema.format === 'date-time' || schema.format === 'date') {
    return fc.oneof(hostileDate, hostileDate.map((d) => (Number.isNaN(d.getTime()) ? 'Invalid Date' : d.toISOString())), plain);
  }
  if (/id$/i.test(name) && known.ids.length > 0) return fc.oneof(fc.constantFrom(...known.ids), plain);
  if (/phone/i.test(name)) return fc.oneof(fc.constantFrom('+442079460018', '020 7946 0018', '+1 (415) 555-0100', '12'), plain);
  if (/email/i.test(name)) return fc.oneof(fc.constantFrom('ana@example.com', ' Ana@Example.COM ', 'a@b', '@'), plain);
  if (name === 'currency') return fc.oneof(fc.constantFrom('GBP', 'gbp', 'XXX', 'EUR'), plain);
  if (name === 'timeZone') return fc.oneof(fc.constantFrom('UTC', 'Europe/London', '+01:00', '../etc/passwd'), plain);
  return plain;
}
