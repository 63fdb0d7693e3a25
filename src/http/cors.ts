import cors from 'cors';
import type { RequestHandler } from 'express';
import { OPENAPI_PATH } from '../openapi/document';
import { RPC_PREFIX } from './rpc-paths';
import { STREAM_TOKENS_PATH } from './stream-token-route';

/**
 * The public API paths a browser page of any origin may call: the action endpoints, the REST
 * leads routes and the OpenAPI document. Listed one by one rather than `/api/v1/*`, so a route added
 * under /api/v1 (such as the playground's session route) is not opened to other origins by default.
 */
export function isPublicApiPath(path: string): boolean {
  // Express routes match with or without one trailing slash, and so does this.
  const route = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return route === RPC_PREFIX || route.startsWith(`${RPC_PREFIX}/`) || route === LEADS_PATH || isSingleLeadPath(route) || route === OPENAPI_PATH || route === STREAM_TOKENS_PATH;
}

const LEADS_PATH = '/api/v1/leads';


/** `/api/v1/leads/{id}`: one segment after the list's path. */
function isSingleLeadPath(route: string): boolean {
  return route.startsWith(`${LEADS_PATH}/`) && route.indexOf('/', LEADS_PATH.length + 1) === -1 && route.length > LEADS_PATH.length + 1;
}

/** Headers a browser may send: the official tRPC client's (`trpc-accept` only from its streaming batch link) and ours. */
// Last-Event-ID: an EventSource (or its ponyfill) on another origin resumes a subscription with it.
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match', 'Last-Event-ID', 'X-Request-Id', 'trpc-accept'];

/** Headers a browser script may read besides the safelisted ones: rate limits, retries, replays, deprecation. */
export const CORS_EXPOSED_HEADERS = ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'Idempotent-Replayed', 'X-Request-Id', 'Deprecation', 'Sunset', 'Link', 'ETag', 'Location'];

/** Chromium caps a cached preflight at two hours; longer values would be cut to this anyway. */
export const CORS_MAX_AGE_SECONDS = 7200;

/**
 * CORS for the public API: any origin, never credentials. The API authenticates only by the
 * `Authorization` header, which a page must set itself, and never reads cookies, so a foreign
 * page can do nothing a program with the same key could not; `Allow-Credentials` stays unset,
 * so browsers never attach cookies or client certificates. Helmet's `Cross-Origin-Resource-Policy:
 * same-origin` becomes `cross-origin` on these paths only: their answers need a key to hold
 * anything private, which a no-cors load cannot send. Other answers on these paths carry the
 * fixed `Allow-Origin: *` and `Expose-Headers` (edge-headers.ts); this answers their preflights
 * (OPTIONS) with 204, before authentication, as they carry no key.
 */
export function publicApiPreflight(): RequestHandler {
  return cors({
    origin: '*',
    credentials: false,
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    preflightContinue: false,
    optionsSuccessStatus: 204,
  });
}
