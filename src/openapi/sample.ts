import type { JsonSchema } from './json-schema';

export interface SampleOptions {
  /**
   * Whether an optional property that has an example joins the sample (all do by default). The
   * playground leaves out optional references: an example id names no record, so it would turn a
   * call that could succeed into a 404.
   */
  includeOptional?: (name: string, example: unknown) => boolean;
  /** What `$ref`s point into (the OpenAPI document); the schema itself by default. */
  root?: JsonSchema;
  /** Date-time values as Dates: an answer's sample, for superjson to serialize as the wire does. */
  dates?: boolean;
}

type Schema = Record<string, unknown>;

/** Deeper than any input here; it stops a `$ref` cycle. */
const MAX_DEPTH = 12;

/**
 * A sample value for a JSON Schema, built only from what the schema documents: a value's
 * `examples[0]`, else its `default`, `const` or first `enum` value, else a composed object or
 * array. An object holds its required properties and the optional ones that carry an example.
 * Nothing is drawn from a pattern: a required value documented by none of these is left blank
 * ("", 0, false, null) for the caller to fill in.
 */
export function composeSample(schema: JsonSchema, options: SampleOptions = {}): unknown {
  const root = options.root ?? schema;
  // The input itself is composed even when it has a default (`{}` for a list's filters), which would hide its examples.
  if (typeOf(schema) === 'object' && !Array.isArray(schema.examples)) return objectSample(root, schema, options, 0);
  return sampleOf(root, schema, options, 0);
}

function sampleOf(root: Schema, schema: Schema, options: SampleOptions, depth: number): unknown {
  const own = documentedValue(root, schema, depth);
  if (own.found) return options.dates ? asDate(root, schema, own.value, depth) : own.value;
  const resolved = resolve(root, schema, depth);
  if (resolved !== schema) return sampleOf(root, resolved, options, depth + 1);
  const branch = firstBranch(schema);
  if (branch) return sampleOf(root, branch, options, depth + 1);
  if (depth > MAX_DEPTH) return null;
  switch (typeOf(schema)) {
    case 'object':
      return objectSample(root, schema, options, depth);
    case 'array':
      return arraySample(root, schema, options, depth);
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

function objectSample(root: Schema, schema: Schema, options: SampleOptions, depth: number): Record<string, unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isSchema(property)) continue;
    if (required.has(name)) {
      out[name] = sampleOf(root, property, options, depth + 1);
      continue;
    }
    const example = exampleOf(root, property, depth + 1);
    if (example.found && (options.includeOptional?.(name, example.value) ?? true)) out[name] = options.dates ? asDate(root, property, example.value, depth) : example.value;
  }
  return out;
}

function arraySample(root: Schema, schema: Schema, options: SampleOptions, depth: number): unknown[] {
  const items = isSchema(schema.items) ? schema.items : undefined;
  if (!items) return [];
  const wanted = typeof schema.minItems === 'number' && schema.minItems > 0;
  // One documented item shows the shape better than an empty list.
  if (!wanted && !documentedValue(root, items, depth + 1).found && typeOf(resolve(root, items, depth + 1)) !== 'object') return [];
  return [sampleOf(root, items, options, depth + 1)];
}

/** A documented date-time string as the Date an answer holds. */
function asDate(root: Schema, schema: Schema, value: unknown, depth: number): unknown {
  if (typeof value !== 'string') return value;
  let s = schema;
  for (let i = 0; i < 4; i++) s = firstBranch(resolve(root, s, depth)) ?? resolve(root, s, depth);
  return s.format === 'date-time' ? new Date(value) : value;
}

interface Found {
  found: boolean;
  value?: unknown;
}

const NOT_FOUND: Found = { found: false };

/** `examples[0]`, `default`, `const` or the first `enum` value, of the schema or the branch a caller would take. */
function documentedValue(root: Schema, schema: Schema, depth: number): Found {
  if (depth > MAX_DEPTH) return NOT_FOUND;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { found: true, value: schema.examples[0] };
  if ('default' in schema) return { found: true, value: schema.default };
  if ('const' in schema) return { found: true, value: schema.const };
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { found: true, value: schema.enum[0] };
  const resolved = resolve(root, schema, depth);
  if (resolved !== schema) return documentedValue(root, resolved, depth + 1);
  const branch = firstBranch(schema);
  return branch ? documentedValue(root, branch, depth + 1) : NOT_FOUND;
}

/** An optional property's example: only `examples` count (a default is what leaving it out gives). */
function exampleOf(root: Schema, schema: Schema, depth: number): Found {
  if (depth > MAX_DEPTH) return NOT_FOUND;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { found: true, value: schema.examples[0] };
  const resolved = resolve(root, schema, depth);
  if (resolved !== schema) return exampleOf(root, resolved, depth + 1);
  const branch = firstBranch(schema);
  return branch ? exampleOf(root, branch, depth + 1) : NOT_FOUND;
}

/** The first `anyOf`/`oneOf` branch that is not `null` (a nullable field's value), when the schema has no type of its own. */
function firstBranch(schema: Schema): Schema | undefined {
  if (schema.type !== undefined) return undefined;
  const branches = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : []).filter(isSchema);
  return branches.find((b) => b.type !== 'null') ?? branches[0];
}

/** A local `$ref` (`#`, `#/$defs/x`) replaced by what it points at; any other schema as it is. */
function resolve(root: Schema, schema: Schema, depth: number): Schema {
  if (typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#') || depth > MAX_DEPTH) return schema;
  let target: unknown = root;
  for (const part of schema.$ref.slice(1).split('/').filter(Boolean)) {
    target = isSchema(target) ? target[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  return isSchema(target) ? target : schema;
}

function typeOf(schema: Schema): unknown {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (schema.type !== undefined) return schema.type;
  if (isSchema(schema.properties)) return 'object';
  if (isSchema(schema.items)) return 'array';
  return undefined;
}

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
