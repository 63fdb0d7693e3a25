import { ERROR_CODES } from '../errors/error-codes';
import type { JsonSchema } from './json-schema';

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** One value's type as superjson names it: `["Date"]` or `["undefined"]`, the only ones this API's inputs and outputs hold. */
const TYPE_ANNOTATION: JsonSchema = { type: 'array', items: { type: 'string' } };

const SUPERJSON_META: JsonSchema = {
  type: 'object',
  properties: {
    values: {
      description: "Each non-JSON value's type: by path (`{\"createdAt\":[\"Date\"]}`), or, when `json` itself is one, its type (`[\"Date\"]`).",
      anyOf: [{ type: 'object', additionalProperties: TYPE_ANNOTATION }, TYPE_ANNOTATION],
    },
    v: { type: 'integer', description: "superjson's format version (1), which superjson 2.2 and later write." },
  },
  description:
    'superjson metadata: which values of `json` are not plain JSON. `values` maps the path of each (dot-separated, ' +
    'array indexes as numbers) to its type, e.g. `{"values":{"createdAt":["Date"],"data.0.nextCallAt":["Date"]}}`: ' +
    'the string at that path is an ISO 8601 date-time that a superjson client (the official tRPC client with ' +
    '`transformer: superjson`) revives as a Date. Absent when `json` holds no Date. Plain-JSON callers may ignore ' +
    'it in answers and leave it out of inputs, sending Dates as ISO 8601 strings with a time zone. In an input it ' +
    "must describe `json` exactly as `superjson.serialize` writes it (a 400 otherwise): JSON Schema cannot say so.",
};

/**
 * `{"json": <input>, "meta"?: {...}}`: the request envelope of one procedure. A procedure whose
 * input may be left out also takes superjson's `undefined`: `{"json":null,"meta":{"values":["undefined"]}}`
 * (what the official client sends for no input), or `meta` alone.
 */
export function requestEnvelope(input: JsonSchema, inputOptional = false): JsonSchema {
  const meta = ref('SuperjsonMeta');
  if (!inputOptional) return { type: 'object', required: ['json'], properties: { json: input, meta } };
  return {
    type: 'object',
    properties: { json: { anyOf: [input, { type: 'null' }] }, meta },
    anyOf: [{ required: ['json'] }, { required: ['meta'] }],
    // `json: null` is `undefined` only as `meta` says so.
    if: { properties: { json: { type: 'null' } }, required: ['json'] },
    then: { properties: { meta }, required: ['meta'] },
  };
}

/**
 * A read's (or a subscription's) `input` query parameter: the request envelope as JSON text. A
 * string parameter with `contentMediaType` and the envelope as its `contentSchema` (OpenAPI 3.1),
 * rather than `content: application/json`: generators serialise a `content` parameter as a form
 * object (hey-api refuses the nesting, orval sends `[object Object]`), while a string is sent as
 * given, URL-encoded; the envelope's component schemas stay in the document to type it.
 */
export function inputQueryParameter(input: JsonSchema, inputOptional: boolean): Record<string, unknown> {
  return {
    name: 'input',
    in: 'query',
    required: !inputOptional,
    description: `The input as JSON text \`{"json": <input>}\` (URL-encoded in the query)${inputOptional ? '; may be left out' : ''}.`,
    schema: { type: 'string', contentMediaType: 'application/json', contentSchema: requestEnvelope(input, inputOptional) },
    ...(inputOptional ? { example: '{"json":{}}' } : {}),
  };
}

/** `{"result":{"data":{"json": <output>, "meta"?}}}`: a procedure's answer, its output as `output` describes it. */
export function successEnvelope(output: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['result'],
    additionalProperties: false,
    properties: {
      result: {
        type: 'object',
        required: ['data'],
        additionalProperties: false,
        properties: {
          data: {
            type: 'object',
            required: ['json'],
            additionalProperties: false,
            properties: { json: { description: 'The output of the procedure.', ...output }, meta: ref('SuperjsonMeta') },
          },
        },
      },
    },
  };
}

const FIELD_ISSUE: JsonSchema = {
  type: 'object',
  required: ['path', 'message'],
  properties: {
    path: { type: 'array', items: { type: ['string', 'integer'] }, description: 'Where in the input; [] is the input itself.' },
    message: { type: 'string' },
  },
};

const ERROR_CODE_NAMES = Object.keys(ERROR_CODES);

/** An error as superjson serialises it: `{"json": {message, code, data}, "meta"?}`. */
const SERIALIZED_ERROR: JsonSchema = {
  type: 'object',
  required: ['json'],
  properties: {
    json: {
      type: 'object',
      required: ['message', 'code', 'data'],
      properties: {
        message: { type: 'string' },
        code: { type: 'integer', description: 'JSON-RPC error number (tRPC v11).' },
        data: {
          type: 'object',
          required: ['code', 'httpStatus'],
          properties: {
            code: { type: 'string', enum: ERROR_CODE_NAMES },
            httpStatus: { type: 'integer', description: 'Same as the HTTP status.' },
            path: { type: 'string', description: 'The procedure name.' },
            issues: { type: 'array', items: ref('FieldIssue'), description: 'Field problems of a 400.' },
          },
        },
      },
    },
    meta: ref('SuperjsonMeta'),
  },
};

/** The tRPC error shape the official client reads (its numeric JSON-RPC code included). */
const RPC_ERROR: JsonSchema = { type: 'object', required: ['error'], properties: { error: SERIALIZED_ERROR } };

const REST_ERROR: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: ERROR_CODE_NAMES },
        message: { type: 'string' },
        issues: { type: 'array', items: ref('FieldIssue') },
      },
    },
  },
};

export const envelopeSchemas: Record<string, JsonSchema> = {
  SuperjsonMeta: SUPERJSON_META,
  RpcError: RPC_ERROR,
  // A subscription's `event: serialized-error` carries it (subscription-operation.ts).
  SerializedError: { ...SERIALIZED_ERROR, description: 'An error that ended a stream, as superjson serialises it (the `error` of RpcError).' },
  RestError: REST_ERROR,
  FieldIssue: FIELD_ISSUE,
};
