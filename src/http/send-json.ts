import type { Response } from 'express';

/**
 * Writes a JSON answer as it is. Express's `res.json`/`res.send` also negotiate the charset,
 * look up settings, consider an ETag and check request freshness on every call: work an API
 * answer to a keyed request never needs. Node itself leaves the body out of HEAD answers.
 */
export function sendJson(res: Response, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
