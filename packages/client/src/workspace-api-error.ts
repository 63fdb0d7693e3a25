/** One field problem of a 400, as the service reports it. */
export interface ApiFieldIssue {
  path: (string | number)[];
  message: string;
}

export interface WorkspaceApiErrorFields {
  code: string;
  status: number;
  message: string;
  issues?: ApiFieldIssue[];
  requestId?: string;
  path: string;
  cause?: unknown;
}

/**
 * Every failure of a call. `code` is the service's error code (`BAD_REQUEST`, `FORBIDDEN`,
 * `PRECONDITION_FAILED`, ...) with the HTTP `status`; or one the client gives when no usable answer
 * came: `UNEXPECTED_RESPONSE` (a body that is not the service's, a proxy's HTML page say),
 * `NETWORK_ERROR` (no answer; `cause` holds fetch's error) and `TIMEOUT` (no answer within
 * `timeoutMs`), both with status 0. A call the caller aborts rejects with its signal's reason instead.
 */
export class WorkspaceApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly issues: ApiFieldIssue[] | undefined;
  /** The `X-Request-Id` the service answered with: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** The procedure name (`leads.create`) or the REST path (`/api/v1/leads`) that failed. */
  readonly path: string;

  constructor(fields: WorkspaceApiErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = 'WorkspaceApiError';
    this.code = fields.code;
    this.status = fields.status;
    this.issues = fields.issues;
    this.requestId = fields.requestId;
    this.path = fields.path;
  }

  /** The same as `status` (the name the service's error body uses). */
  get httpStatus(): number {
    return this.status;
  }
}
