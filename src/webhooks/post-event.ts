import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/** How much of a receiver's answer is kept (as the attempt's excerpt); the rest is never read. */
export const RESPONSE_EXCERPT_BYTES = 1024;
const ERROR_TEXT_LIMIT = 500;

export interface PostRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  /** For the whole request: connecting, sending, the answer's status and its excerpt. */
  timeoutMs: number;
  /** guardedLookup(policy): the address connected to is the address checked. */
  lookup: LookupFunction;
  agents?: { http: http.Agent; https: https.Agent };
}

export interface PostOutcome {
  startedAt: Date;
  durationMs: number;
  /** The receiver's status, or null when none came (network error, timeout). */
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/**
 * POSTs one delivery and never throws: whatever happens is an outcome. Redirects are not followed
 * (a 3xx is a failed attempt: the endpoint's URL is what was checked and subscribed). Once the
 * status and the excerpt are in, the connection is dropped if more follows.
 */
export function postEvent(request: PostRequest): Promise<PostOutcome> {
  const startedAt = new Date();
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let current: http.ClientRequest | undefined;
    let statusCode: number | null = null;
    let chunks: Buffer[] = [];
    /** `drop`: the exchange is cut short, so its connection cannot be reused. */
    const finish = (error: string | null, drop = true) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (drop) current?.destroy();
      const excerpt = statusCode === null ? null : cleanText(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8'));
      resolve({ startedAt, durationMs: Math.round(performance.now() - started), statusCode, error: error && cleanText(error).slice(0, ERROR_TEXT_LIMIT), responseExcerpt: excerpt });
    };
    // An answer's status counts even when its body is still coming at the deadline.
    const timer = setTimeout(() => finish(statusCode === null ? `timed out after ${request.timeoutMs} ms` : null), request.timeoutMs);

    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return finish('invalid URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return finish(`unsupported protocol ${url.protocol}`);
    const send = (retried: boolean) => {
      const transport = url.protocol === 'https:' ? https : http;
      const agent = url.protocol === 'https:' ? request.agents?.https : request.agents?.http;
      const req = transport.request(url, {
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        lookup: request.lookup,
        ...(agent ? { agent } : {}),
      });
      current = req;
      req.on('response', (res) => {
        statusCode = res.statusCode ?? null;
        chunks = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_EXCERPT_BYTES) finish(null);
        });
        // A complete answer leaves its kept-alive connection to the agent for the next delivery.
        res.on('end', () => finish(null, false));
        res.on('close', () => finish(null));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        // A kept-alive connection the receiver closed just as it was reused: Node's documented case for one retry.
        if (!retried && req.reusedSocket && err.code === 'ECONNRESET' && statusCode === null) return send(true);
        finish(statusCode === null ? err.message || String(err.code) : null);
      });
      req.end(request.body);
    };
    send(false);
  });
}

/** PostgreSQL text cannot hold NUL. */
function cleanText(text: string): string {
  return text.replace(/\u0000/g, '');
}
