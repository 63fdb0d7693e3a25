import type { ErrorCode } from './error-codes';

/** One field problem: where in the input, and what is wrong there. */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
}

/** Longest error message answered: a message may quote the input (an unknown procedure's name, a path). */
export const MAX_MESSAGE_CHARS = 1000;

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
    super(capText(message, MAX_MESSAGE_CHARS), { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.issues = options.issues;
    this.headers = options.headers;
  }
}

/** At most this many field issues are answered; one more then says how many were left out. */
export const MAX_ISSUES = 20;
/** Longest message or path segment answered: an issue may echo the input (an unknown field's name). */
export const MAX_ECHO_CHARS = 200;

/**
 * A 400 made of field issues, with a readable summary rather than a dump of them. Whatever the
 * input, the answer stays a few KB: the first MAX_ISSUES issues, each cut to MAX_ECHO_CHARS.
 * `total` is how many issues there were when the caller passes only the first ones.
 */
export function invalidInput(issues: FieldIssue[], total = issues.length): AppError {
  const answered = issues.slice(0, MAX_ISSUES).map(capIssue);
  const shown = answered.slice(0, 3).map((i) => `${formatPath(i.path)}: ${i.message}`);
  const more = total > 3 ? ` (and ${total - 3} more)` : '';
  const left = total - answered.length;
  if (left > 0) answered.push({ path: [], message: `and ${left} more issues` });
  return new AppError('BAD_REQUEST', `Invalid input: ${shown.join('; ')}${more}`, { issues: answered });
}

function capIssue(issue: FieldIssue): FieldIssue {
  return { path: issue.path.map((p) => (typeof p === 'string' ? capText(p) : p)), message: capText(issue.message) };
}

/** `text`, or its first `max` characters and how long it was: what any echo of the input is cut to. */
export function capText(text: string, max = MAX_ECHO_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

function formatPath(path: (string | number)[]): string {
  if (path.length === 0) return 'input';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
