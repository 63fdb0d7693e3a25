import type { Response } from 'express';

/**
 * Marks a stored answer's error code for the request log (an Idempotency-Key replay, or a caller's
 * error stored with it), as the error handler marks a live one: the RPC envelope's
 * `error.json.data.code`, or the REST body's `error.code`.
 */
export function markStoredErrorCode(res: Response, answer: { status: number; body: unknown }): void {
  if (answer.status < 400) return;
  const error = (answer.body as { error?: { code?: unknown; json?: { data?: { code?: unknown } } } } | null)?.error;
  const code = error?.json?.data?.code ?? error?.code;
  if (typeof code === 'string') res.locals.errorCode = code;
}
