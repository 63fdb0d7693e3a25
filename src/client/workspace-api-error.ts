/** One field problem of a 400, as the service reports it. */
export interface ApiFieldIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Every failure the service answers, from an action endpoint or the REST list. `code` is the
 * service's error code (`BAD_REQUEST`, `FORBIDDEN`, ...), or `UNEXPECTED_RESPONSE` when the body
 * is not one of its error bodies (a proxy's HTML page, say). Network failures are not wrapped:
 * they reject with fetch's own error, since no answer was received.
 */
export class WorkspaceApiError extends Error {
  readonly code: string;
  readonly httpStatus: number;
  readonly issues: ApiFieldIssue[] | undefined;
  /** The procedure name (`leads.create`) or the REST path (`/api/v1/leads`) that failed. */
  readonly path: string;

  constructor(fields: { code: string; httpStatus: number; message: string; issues?: ApiFieldIssue[]; path: string }) {
    super(fields.message);
    this.name = 'WorkspaceApiError';
    this.code = fields.code;
    this.httpStatus = fields.httpStatus;
    this.issues = fields.issues;
    this.path = fields.path;
  }
}
