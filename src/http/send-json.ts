import type { Response } from 'express';

/**
 * Writes a JSON answer as it is. Express's `res.json`/`res.send` also negotiate the charset,
 * look up settings, consider an ETag and check request freshness on every call: work an API
 * answer to a keyed request never needs. Node itself leaves the body out of HEAD answers.
 *
 * An answer given in pieces is written piece by piece (one writev): joined, a list page's
 * 47 KB of leads would be copied twice more in V8's heap (flattened to count its bytes, then
 * again behind the headers), garbage that the 50-connection list load promotes and collects.
 */
export function sendJson(res: Response, status: number, text: string | readonly string[]): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (typeof text === 'string') {
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
    return;
  }
  let length = 0;
  for (const piece of text) length += Buffer.byteLength(piece);
  res.setHeader('Content-Length', length);
  res.cork();
  for (const piece of text) res.write(piece);
  res.end();
}
