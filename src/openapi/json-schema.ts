import { z } from 'zod';
import { fieldKinds } from '../procedures/shared/fields';

export type JsonSchema = Record<string, unknown>;

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * The JSON Schema of what a caller sends (`io: 'input'`: before transforms and defaults).
 * Dates travel in the envelope's `json` as ISO strings (superjson adds `meta` to revive them),
 * so a `z.date()` is described as a date-time string rather than left as "anything".
 */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', ...CONVERSION }) as JsonSchema;
  delete json.$schema;
  return stripSafeIntegerBounds(json) as JsonSchema;
}

/** What a caller sends for a date field: a day or a date-time, both as ISO 8601 text. */
const DATE_TEXT = [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }];

const CONVERSION = {
  unrepresentable: 'any',
  override: ({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodTypes; jsonSchema: z.core.JSONSchema.BaseSchema }) => {
    const kind = fieldKinds.get(zodSchema as unknown as z.ZodType)?.kind;
    if (kind === 'dateTime' || kind === 'date') {
      // A Date or ISO text: zod's union of both (with its long date-time pattern) says the same less plainly.
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
      Object.assign(jsonSchema, kind === 'dateTime' ? { type: 'string', format: 'date-time' } : { anyOf: DATE_TEXT });
    } else if (zodSchema._zod.def.type === 'date') {
      jsonSchema.type = 'string';
      jsonSchema.format = 'date-time';
    }
    // zod leaves the examples of a schema that transforms out of its input side: they are the input's.
    const meta = z.globalRegistry.get(zodSchema as unknown as z.ZodType);
    if (meta?.examples && jsonSchema.examples === undefined) jsonSchema.examples = meta.examples as unknown[];
    if (meta?.description && jsonSchema.description === undefined) jsonSchema.description = meta.description;
  },
} as const;

/**
 * The component schemas of what procedures answer (`io: 'output'`), one per `id`, each referring
 * to the others by `#/components/schemas/<id>`: a resource named once (Lead) is written once and
 * referred to from every output that holds it. Dates are date-time strings, as `json` carries them.
 */
export function outputComponentSchemas(named: ReadonlyMap<z.ZodType, string>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of named) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io: 'output', uri: (id) => `#/components/schemas/${id}`, ...CONVERSION }) as {
    schemas: Record<string, JsonSchema>;
  };
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _schema, $id: _id, ...rest } = schema;
      return [id, stripSafeIntegerBounds(rest) as JsonSchema];
    }),
  );
}

/** zod writes ±2^53-1 as the bounds of every `.int()`: true, but noise in a reference. */
function stripSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeIntegerBounds);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if ((key === 'maximum' || key === 'minimum') && SAFE_INTEGER_BOUNDS.has(inner as number)) continue;
    out[key] = stripSafeIntegerBounds(inner);
  }
  return out;
}

/** Whether a call may leave the input out entirely (the dispatcher then parses `undefined`). */
export function acceptsNoInput(schema: z.ZodType): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    // An async refinement cannot run synchronously; such a schema is not one that takes nothing.
    return false;
  }
}
