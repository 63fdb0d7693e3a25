import express, { type Router } from 'express';
import { dispatch, type DispatchDeps } from '../rpc/dispatch';
import { encodeResult } from '../rpc/envelope';
import { sendJson } from './send-json';
import { readRawBody } from './read-raw-body';
import { RPC_PREFIX, procedurePathOf } from './rpc-paths';
import type { Deprecation } from '../rpc/define-procedure';
import { recordPrincipal } from '../observability/request-principal';
import type { RateLimiter } from '../ratelimit/rate-limiter';
import { markStoredErrorCode } from '../api-key-requests/stored-error-code';

/** RFC 9745 `Deprecation` (a structured date) and RFC 8594 `Sunset` (an HTTP date). */
export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  const headers: Record<string, string> = {
    Deprecation: `@${Math.floor(Date.parse(deprecation.since) / 1000)}`,
    Sunset: new Date(deprecation.sunset).toUTCString(),
  };
  if (deprecation.replacement) headers.Link = `<${RPC_PREFIX}/${deprecation.replacement}>; rel="successor-version"`;
  return headers;
}

/**
 * The catch-all for action endpoints: hands each call to the dispatcher and wraps its output in
 * the envelope. JSON is parsed by the dispatcher, only after the content type is checked.
 */
export function rpcRouter({ rateLimiter, ...deps }: DispatchDeps & { rateLimiter?: RateLimiter }, bodyLimit: string): Router {
  const router = express.Router({ caseSensitive: true });
  router.all([RPC_PREFIX, `${RPC_PREFIX}/*name`], readRawBody(bodyLimit), async (req, res) => {
    const query = req.query; // a getter: Express 5 parses the query string on every read
    // The caller is remembered for the request log, even when a later check refuses the call.
    const cost = deps.registry.get(procedurePathOf(req.path) ?? '')?.cost;
    const limits = rateLimiter?.forCall(req.ip, (fields) => res.set(fields), cost);
    const { procedure, output, answer } = await dispatch(deps, {
      name: procedurePathOf(req.path) ?? '',
      method: req.method,
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      body: Buffer.isBuffer(req.body) ? req.body : undefined,
      bodyError: res.locals.bodyError,
      inputParam: query.input,
      batch: query.batch !== undefined,
      // headersDistinct builds a table of every header: read only when the header came.
      idempotencyKey: req.headers['idempotency-key'] === undefined ? undefined : req.headersDistinct['idempotency-key'],
      limits,
      onAuthenticated: (principal) => recordPrincipal(res, principal),
      requestId: res.locals.requestId,
    });
    if (procedure.deprecated) res.set(deprecationHeaders(procedure.deprecated));
    // An idempotent call's answer is written exactly as stored, so a replay is the same answer.
    if (answer) {
      if (answer.replayed) res.set('Idempotent-Replayed', 'true');
      markStoredErrorCode(res, answer);
      sendJson(res, answer.status, JSON.stringify(answer.body));
      return;
    }
    sendJson(res, 200, JSON.stringify(encodeResult(output)));
  });
  return router;
}
