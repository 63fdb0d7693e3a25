import type { AppError } from '../errors/app-error';
import type { ErrorCode } from '../errors/error-codes';
import { httpStatusOf } from '../errors/error-codes';

/**
 * 400s are not stored, even when the handler raises them (a phone invalid in the workspace's
 * region): the caller fixes the input and retries with the same key. 429 is about timing.
 */
const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set(['BAD_REQUEST', 'TOO_MANY_REQUESTS']);

/** Serialization failure and deadlock: a race with another transaction, which a retry may win. */
const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set(['40001', '40P01']);

/**
 * Whether a handler's error is part of the call's answer, replayed to a retry as Stripe does: the
 * caller's errors (404, 409, 422...) are; server errors (5xx, 503) and retryable ones are not.
 */
export function isStoredError(error: AppError): boolean {
  const status = httpStatusOf(error.code);
  if (status < 400 || status >= 500 || RETRYABLE_CODES.has(error.code)) return false;
  const sqlState = (error.cause as { code?: unknown } | undefined)?.code;
  return !(typeof sqlState === 'string' && RETRYABLE_SQLSTATES.has(sqlState));
}
