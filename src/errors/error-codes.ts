/**
 * The closed set of error codes, with tRPC v11's names, JSON-RPC numbers and HTTP statuses,
 * so the official tRPC client can read every error this service sends.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { jsonRpc: -32600, httpStatus: 400 },
  UNAUTHORIZED: { jsonRpc: -32001, httpStatus: 401 },
  FORBIDDEN: { jsonRpc: -32003, httpStatus: 403 },
  NOT_FOUND: { jsonRpc: -32004, httpStatus: 404 },
  METHOD_NOT_SUPPORTED: { jsonRpc: -32005, httpStatus: 405 },
  CONFLICT: { jsonRpc: -32009, httpStatus: 409 },
  PAYLOAD_TOO_LARGE: { jsonRpc: -32013, httpStatus: 413 },
  UNSUPPORTED_MEDIA_TYPE: { jsonRpc: -32015, httpStatus: 415 },
  UNPROCESSABLE_CONTENT: { jsonRpc: -32022, httpStatus: 422 },
  TOO_MANY_REQUESTS: { jsonRpc: -32029, httpStatus: 429 },
  INTERNAL_SERVER_ERROR: { jsonRpc: -32603, httpStatus: 500 },
  SERVICE_UNAVAILABLE: { jsonRpc: -32603, httpStatus: 503 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].httpStatus;
}

export function jsonRpcCodeOf(code: ErrorCode): number {
  return ERROR_CODES[code].jsonRpc;
}
