import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/**
 * The JSON Schema of what a caller sends (`io: 'input'`: before transforms and defaults).
 * Dates travel in the envelope's `json` as ISO strings (superjson adds `meta` to revive them),
 * so a `z.date()` is described as a date-time string rather than left as "anything".
 */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type === 'date') {
        jsonSchema.type = 'string';
        jsonSchema.format = 'date-time';
      }
    },
  }) as JsonSchema;
  delete json.$schema;
  return stripSafeIntegerBounds(json) as JsonSchema;
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
