import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** A JSON Schema (2020-12, as OpenAPI 3.1 writes it) or any other object of the document. */
export type Schema = Record<string, any>;
export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components?: Record<string, Record<string, any>>;
  [key: string]: unknown;
}

const DOC_ID = 'https://contract.test/openapi.json';

/** Follows a local `$ref` (`#/components/...`) of the document, any number of times. */
export function deref<T = Schema>(doc: OpenApiDocument, node: unknown): T {
  let current = node as Schema;
  for (let hops = 0; current && typeof current === 'object' && typeof current.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref cycle at ${current.$ref}`);
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
    const target = ref
      .slice(2)
      .split('/')
      .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<any>((at, key) => (at === undefined ? undefined : at[key]), doc);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    const { $ref: _ignored, ...siblings } = current;
    // 2020-12: keywords beside a $ref apply as well (an implicit allOf).
    current = Object.keys(siblings).length > 0 ? { allOf: [target, siblings] } : target;
  }
  return current as T;
}

const lowest = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
const highest = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));

/**
 * One schema with its `$ref`s and `allOf` merged in (a simple merge: enough for generation; the
 * exact answer is always ajv's). Patterns are gathered in `patterns`, `not`s in `nots`; keywords
 * the merge cannot combine are kept in `unmerged` (the caller filters with ajv).
 */
export function flatten(doc: OpenApiDocument, input: unknown): Schema {
  if (input === true || input === undefined) return {};
  if (input === false) return { not: {} , nots: [{}] };
  const schema = deref(doc, input);
  const { allOf, pattern, not, ...rest } = schema;
  let out: Schema = { ...rest, patterns: pattern ? [pattern] : [], nots: not !== undefined ? [not] : [] };
  for (const part of (allOf as unknown[] | undefined) ?? []) out = merge(out, flatten(doc, part));
  return out;
}

function merge(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in a)) {
      out[key] = value;
      continue;
    }
    const mine = a[key];
    switch (key) {
      case 'patterns': case 'nots': case 'examples': case 'unmerged':
        out[key] = [...mine, ...value];
        break;
      case 'required':
        out[key] = [...new Set([...mine, ...value])];
        break;
      case 'properties':
        out[key] = { ...mine };
        for (const [name, sub] of Object.entries(value as Schema)) out[key][name] = name in mine ? { allOf: [mine[name], sub] } : sub;
        break;
      case 'type': {
        const left = [mine].flat();
        const right = new Set([value].flat());
        // integer is a number: {type: number} ∧ {type: integer} is integer.
        out[key] = left.flatMap((t: string) => (right.has(t) ? [t] : t === 'number' && right.has('integer') ? ['integer'] : t === 'integer' && right.has('number') ? ['integer'] : []));
        break;
      }
      case 'enum':
        out[key] = mine.filter((v: unknown) => (value as unknown[]).some((w) => JSON.stringify(w) === JSON.stringify(v)));
        break;
      case 'minimum': case 'exclusiveMinimum': case 'minLength': case 'minItems': case 'minProperties':
        out[key] = highest(mine, value);
        break;
      case 'maximum': case 'exclusiveMaximum': case 'maxLength': case 'maxItems': case 'maxProperties':
        out[key] = lowest(mine, value);
        break;
      case 'additionalProperties':
        out[key] = mine === false || value === false ? false : { allOf: [mine, value] };
        break;
      case 'items':
        out[key] = { allOf: [mine, value] };
        break;
      case 'description': case 'default': case 'title': case 'example': case 'format':
        break;
      default:
        if (JSON.stringify(mine) !== JSON.stringify(value)) out.unmerged = [...(out.unmerged ?? []), { [key]: value }];
    }
  }
  return out;
}

const SUPERJSON_META = /\/SuperjsonMeta$/;

/**
 * A procedure's request envelope (`{"json": <input>, "meta"?: SuperjsonMeta}`): the schema of its
 * input, and whether the input may be left out (then `{"meta": ...}` alone is an envelope too).
 * Undefined for any other schema.
 */
export function envelopeOf(doc: OpenApiDocument, schema: unknown): { input: unknown; inputOptional: boolean } | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  const s = deref(doc, schema);
  const meta = s.properties?.meta;
  if (s.type !== 'object' || !s.properties?.json || !meta || typeof meta.$ref !== 'string' || !SUPERJSON_META.test(meta.$ref)) return undefined;
  return { input: s.properties.json, inputOptional: !(s.required ?? []).includes('json') };
}

/** The JSON types a schema admits, from `type` or else from the keywords it uses. */
export function typesOf(schema: Schema): string[] {
  if (schema.type !== undefined) return [schema.type].flat();
  if ('const' in schema) return [jsonType(schema.const)];
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(jsonType))];
  if (schema.properties || schema.required || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items || schema.minItems !== undefined || schema.maxItems !== undefined) return ['array'];
  if (schema.patterns?.length || schema.format || schema.minLength !== undefined || schema.maxLength !== undefined) return ['string'];
  if (schema.minimum !== undefined || schema.maximum !== undefined || schema.multipleOf !== undefined) return ['number'];
  return [];
}

export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

export type Validate = (value: unknown) => boolean;

/**
 * ajv over one document: validators for any schema of it (its `#/components/...` references
 * resolve against the document). Not strict: OpenAPI's own keywords (`example`, `x-...`) may sit
 * in schemas; the lint test is where the document's form is judged.
 */
export function createValidators(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // The document's own format: whether a number exists is libphonenumber's call (in the workspace's
  // region), which no pattern can say; any string is a `phone` to ajv, values come from `examples`.
  ajv.addFormat('phone', true);
  ajv.addSchema({ $id: DOC_ID, components: doc.components ?? {} });
  const cache = new WeakMap<object, ReturnType<typeof ajv.compile>>();
  const absolute = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(absolute);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, key === '$ref' && typeof inner === 'string' && inner.startsWith('#') ? DOC_ID + inner : absolute(inner)]),
    );
  };
  function compiled(schema: unknown) {
    if (schema === true || schema === undefined) return Object.assign(() => true, { errors: null });
    if (schema === false) return Object.assign(() => false, { errors: null });
    let validate = cache.get(schema as object);
    if (!validate) {
      validate = ajv.compile(absolute(schema) as Schema);
      cache.set(schema as object, validate);
    }
    return validate;
  }
  return {
    /** Whether `value` is valid against `schema` (a schema object of the document, refs and all). */
    isValid: (schema: unknown, value: unknown): boolean => compiled(schema)(value) as boolean,
    /** ajv's messages, or [] when valid. */
    errorsOf: (schema: unknown, value: unknown): string[] => {
      const validate = compiled(schema);
      return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    },
  };
}
export type Validators = ReturnType<typeof createValidators>;
