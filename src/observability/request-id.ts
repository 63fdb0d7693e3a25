import { randomUUID } from 'node:crypto';

/** What an incoming X-Request-Id may be: short, and safe to copy into a header and a log line. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Keeps a caller's (or proxy's) request id so one id follows the request across services;
 * anything else (missing, too long, with spaces, repeated headers joined by a comma) is replaced.
 */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}
