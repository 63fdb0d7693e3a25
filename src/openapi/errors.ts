import { ERROR_CODES, type ErrorCode } from '../errors/error-codes';
import { ref } from './envelopes';
import { RATE_LIMIT_HEADERS } from './rate-limit';

/** Why each status happens, as the spec and docs/decisions.md put it. */
const WHEN: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'The input failed validation (`issues` names the fields), or the envelope is malformed.',
  UNAUTHORIZED: 'Missing or malformed Authorization header, or an invalid, expired or revoked key.',
  FORBIDDEN: 'The workspace is not on the maximum tier, the endpoint is not exposed, or the key lacks the scope.',
  NOT_FOUND: 'A referenced record does not exist in this workspace.',
  CONFLICT: 'The record is not in a state that allows the change, or a call with the same `Idempotency-Key` is still in progress (retry).',
  UNPROCESSABLE_CONTENT: 'The `Idempotency-Key` was already used for another request (another body or procedure).',
  PRECONDITION_FAILED: "The `If-Match` ETag is not the resource's current one (it changed since, or the tag is not one of ours): nothing was written.",
  PAYLOAD_TOO_LARGE: 'The body is larger than the service accepts.',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not sent as `Content-Type: application/json`.',
  TOO_MANY_REQUESTS: "The key's requests per minute are used up, or its client address failed to authenticate too often; wait `Retry-After` seconds.",
  INTERNAL_SERVER_ERROR: 'Unexpected server error.',
  SERVICE_UNAVAILABLE: 'The database cannot be reached; retry later.',
};

const READ_ERRORS: ErrorCode[] = ['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'];
const WRITE_ERRORS: ErrorCode[] = [...READ_ERRORS, 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'UNPROCESSABLE_CONTENT'];
const REST_LIST_ERRORS: ErrorCode[] = ['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'];

/** The error responses of an operation, keyed by status, all with the given body schema. */
function errorResponses(codes: ErrorCode[], schemaName: string, when: Partial<Record<ErrorCode, string>> = {}): Record<string, unknown> {
  const sorted = [...codes].sort((a, b) => ERROR_CODES[a].httpStatus - ERROR_CODES[b].httpStatus);
  return Object.fromEntries(
    sorted.map((code) => [
      String(ERROR_CODES[code].httpStatus),
      {
        description: `\`${code}\`: ${when[code] ?? WHEN[code] ?? code}`,
        ...(code === 'TOO_MANY_REQUESTS' ? { headers: RATE_LIMIT_HEADERS } : {}),
        content: { 'application/json': { schema: ref(schemaName) } },
      },
    ]),
  );
}

export function rpcErrorResponses(method: 'GET' | 'POST'): Record<string, unknown> {
  return errorResponses(method === 'GET' ? READ_ERRORS : WRITE_ERRORS, 'RpcError');
}

export function restListErrorResponses(): Record<string, unknown> {
  // No maximum-tier rule here: the spec sets it for the action endpoints only.
  return errorResponses(REST_LIST_ERRORS, 'RestError', {
    BAD_REQUEST: 'A parameter is invalid, unknown or repeated (`issues` names it).',
    FORBIDDEN: 'The key lacks the `leads.read` scope.',
  });
}

/** The error responses of a REST operation, in the REST error body; `when` says why each happens there. */
export function restErrorResponses(codes: ErrorCode[], when: Partial<Record<ErrorCode, string>> = {}): Record<string, unknown> {
  return errorResponses(codes, 'RestError', when);
}
