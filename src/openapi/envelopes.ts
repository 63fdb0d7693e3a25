import { ERROR_CODES } from '../errors/error-codes';
import type { JsonSchema } from './json-schema';

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const SUPERJSON_META: JsonSchema = {
  type: 'object',
  description:
    'superjson metadata telling a superjson client which values of `json` to revive (Dates, for example). ' +
    'Plain-JSON callers may leave it out and send Dates as ISO 8601 strings with a time zone.',
  additionalProperties: true,
};

/** `{"json": <input>, "meta"?: {...}}`: the request envelope of one procedure. */
export function requestEnvelope(input: JsonSchema): JsonSchema {
  return { type: 'object', required: ['json'], properties: { json: input, meta: ref('SuperjsonMeta') } };
}

/** `{"result":{"data":{"json": <output>, "meta"?}}}`; outputs have no schema in the registry yet. */
const RPC_SUCCESS: JsonSchema = {
  type: 'object',
  required: ['result'],
  properties: {
    result: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'object',
          required: ['json'],
          properties: { json: { description: 'The output of the procedure.' }, meta: ref('SuperjsonMeta') },
        },
      },
    },
  },
};

const FIELD_ISSUE: JsonSchema = {
  type: 'object',
  required: ['path', 'message'],
  properties: {
    path: { type: 'array', items: { type: ['string', 'integer'] }, description: 'Where in the input; [] is the input itself.' },
    message: { type: 'string' },
  },
};

const ERROR_CODE_NAMES = Object.keys(ERROR_CODES);

/** The tRPC error shape the official client reads (its numeric JSON-RPC code included). */
const RPC_ERROR: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
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
    },
  },
};

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
  RpcSuccess: RPC_SUCCESS,
  RpcError: RPC_ERROR,
  RestError: REST_ERROR,
  FieldIssue: FIELD_ISSUE,
};
