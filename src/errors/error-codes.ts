/**
 * The closed set of error codes, with tRPC v11's names, JSON-RPC numbers and HTTP statuses,
 * so the official tRPC client can read every error this service sends.
 *
 * The HTTP parser's own refusals need one status tRPC has no name for (431): it is marked
 * `beyondTrpc` and numbered by tRPC's rule (-32000 less the status's last two digits, so 431 is
 * -32031), which keeps it clear of every number tRPC uses.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { jsonRpc: -32600, httpStatus: 400 },
  UNAUTHORIZED: { jsonRpc: -32001, httpStatus: 401 },
  FORBIDDEN: { jsonRpc: -32003, httpStatus: 403 },
  NOT_FOUND: { jsonRpc: -32004, httpStatus: 404 },
  METHOD_NOT_SUPPORTED: { jsonRpc: -32005, httpStatus: 405 },
  TIMEOUT: { jsonRpc: -32008, httpStatus: 408 },
  CONFLICT: { jsonRpc: -32009, httpStatus: 409 },
  /** A conditional write (`If-Match`) whose condition no longer holds: nothing was written. */
  PRECONDITION_FAILED: { jsonRpc: -32012, httpStatus: 412 },
  PAYLOAD_TOO_LARGE: { jsonRpc: -32013, httpStatus: 413 },
  UNSUPPORTED_MEDIA_TYPE: { jsonRpc: -32015, httpStatus: 415 },
  UNPROCESSABLE_CONTENT: { jsonRpc: -32022, httpStatus: 422 },
  TOO_MANY_REQUESTS: { jsonRpc: -32029, httpStatus: 429 },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { jsonRpc: -32031, httpStatus: 431, beyondTrpc: true },
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

/** True for the codes tRPC v11 itself defines (all but the parser's 431). */
export function isTrpcCode(code: ErrorCode): boolean {
  return !('beyondTrpc' in ERROR_CODES[code]);
}
