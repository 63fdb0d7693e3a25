import type { ErrorCode } from './error-codes';

/** One field problem: where in the input, and what is wrong there. */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
}

/** The only error type the service throws on purpose; anything else is reported as an internal error. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly issues: FieldIssue[] | undefined;
  /** Extra headers the answer must carry (e.g. WWW-Authenticate on 401). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; issues?: FieldIssue[]; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.issues = options.issues;
    this.headers = options.headers;
  }
}

/** A 400 made of field issues, with a readable summary rather than a dump of them. */
export function invalidInput(issues: FieldIssue[]): AppError {
  const shown = issues.slice(0, 3).map((i) => `${formatPath(i.path)}: ${i.message}`);
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return new AppError('BAD_REQUEST', `Invalid input: ${shown.join('; ')}${more}`, { issues });
}

function formatPath(path: (string | number)[]): string {
  if (path.length === 0) return 'input';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
