import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import { CORS_EXPOSED_HEADERS, isPublicApiPath, publicApiPreflight } from './cors';

type HeaderList = readonly (readonly [string, string])[];

/**
 * The headers helmet's defaults set, read once from helmet itself. With no per-request
 * directives (nonces) its answer is the same list for every request, yet it rebuilds its
 * Content-Security-Policy and walks thirteen middleware on each one; this sets the same list.
 */
export function helmetDefaultHeaders(): HeaderList {
  const headers: [string, string][] = [];
  const res = {
    setHeader(name: string, value: unknown) {
      headers.push([name, String(value)]);
    },
    removeHeader() {},
    getHeader() {
      return undefined;
    },
  };
  let finished = false;
  helmet()({} as IncomingMessage, res as unknown as ServerResponse, () => {
    finished = true;
  });
  if (!finished) throw new Error('helmet did not set its headers synchronously');
  return headers;
}

/**
 * Every answer's headers in one step: helmet's on all of them; on the public API paths,
 * CORS for any origin without credentials (`cors.ts` says why) and a cross-origin
 * Cross-Origin-Resource-Policy. Preflights on those paths are answered here.
 */
export function edgeHeaders(): RequestHandler {
  const helmetHeaders = helmetDefaultHeaders();
  const publicApi: HeaderList = [
    ...helmetHeaders.filter(([name]) => name.toLowerCase() !== 'cross-origin-resource-policy'),
    ['Cross-Origin-Resource-Policy', 'cross-origin'],
    ['Access-Control-Allow-Origin', '*'],
    ['Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(',')],
  ];
  const preflight = publicApiPreflight();
  return (req, res, next) => {
    const isPublic = isPublicApiPath(req.path);
    for (const [name, value] of isPublic ? publicApi : helmetHeaders) res.setHeader(name, value);
    if (isPublic && req.method === 'OPTIONS') return preflight(req, res, next);
    next();
  };
}
