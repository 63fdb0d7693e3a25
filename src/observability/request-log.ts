import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger';
import type { Metrics } from './metrics';
import { requestIdFrom } from './request-id';
import { principalOf } from './request-principal';
import { pathOf, UNMATCHED, type RouteLabels } from './route-label';
import type { KeyRequestRecorder } from '../api-key-requests/recorder';
import { loggedProcedureOf } from '../api-key-requests/logged-procedure';

/** Probes and scrapes arrive every few seconds: logged at debug so they do not drown the rest. */
const QUIET_ROUTES = new Set(['GET /healthz', 'GET /readyz', 'GET /metrics']);

/** nginx's code for a request whose client went away before any answer was sent. */
const CLIENT_CLOSED = 499;

interface Deps {
  logger: Logger;
  metrics: Metrics;
  labelsOf(req: Request, path: string): RouteLabels;
  /** Each API key's own request log (apiKeys.getRequests): told of every answer to a key, never awaited. */
  keyRequests?: KeyRequestRecorder;
}

/**
 * Gives every request an id (echoed in X-Request-Id, errors included) and, when its answer is
 * finished or abandoned, writes exactly one log line and records its metrics. The line names the
 * path but never the query string, headers, cookies or body. Per request it only stores the id,
 * start time and the shared labeller (which names the trace's server span) on res.locals and adds
 * one shared 'close' listener (no closure, no child logger); 'close' fires once per answer.
 */
export function requestLog(deps: Deps): RequestHandler {
  function onClose(this: Response): void {
    const res = this;
    const req = res.req;
    const seconds = (performance.now() - (res.locals.startedAt as number)) / 1000;
    const status = res.headersSent ? res.statusCode : CLIENT_CLOSED;
    const path = pathOf(req);
    const { route, metricRoute } = deps.labelsOf(req, path);
    deps.metrics.observeRequest(metricRoute, status, seconds);
    const principal = principalOf(res);
    if (principal?.kind === 'apiKey' && deps.keyRequests) {
      const durationMs = Math.round(seconds * 1e6) / 1e3;
      deps.keyRequests.record({
        orgId: principal.orgId, keyId: principal.id, atMs: Date.now() - Math.round(durationMs), method: req.method,
        // The metrics' label: a procedure's name (an unknown one collapsed), a REST route's pattern, never the raw path.
        procedure: loggedProcedureOf(metricRoute), status, errorCode: (res.locals.errorCode as string | undefined) ?? null,
        durationMs, requestId: res.locals.requestId as string, clientAddress: req.ip ?? null,
      });
    }
    // A 503 the client may retry (its cause on the same line) is expected in an outage and heals by
    // itself: warn. Error is kept for what needs a person.
    const cause = res.locals.unavailableCause as { code?: unknown; message?: unknown } | undefined;
    const level = cause && status === 503 ? 'warn' : status >= 500 ? 'error' : QUIET_ROUTES.has(route) ? 'debug' : 'info';
    if (!deps.logger.isLevelEnabled(level)) return;
    deps.logger[level](
      {
        reqId: res.locals.requestId,
        method: req.method,
        route,
        path,
        status,
        durationMs: Math.round(seconds * 1e6) / 1e3,
        orgId: principal?.orgId,
        keyId: principal?.id,
        authKind: principal?.kind,
        aborted: res.writableFinished ? undefined : true,
        cause,
      },
      'request',
    );
  }

  return (req, res, next) => {
    const id = requestIdFrom(req.headers['x-request-id']);
    res.locals.requestId = id;
    res.locals.startedAt = performance.now();
    res.locals.labelsOf = deps.labelsOf;
    res.setHeader('X-Request-Id', id);
    res.on('close', onClose);
    next();
  };
}

/**
 * The name of a request's server span (tracing.ts), read as its span ends: the route label
 * of the request log and the metrics (`GET /api/v1/leads/:id`, `leads.create`), unknown procedures
 * collapsed (the path is the caller's text), undefined for what no route matched.
 */
export function serverSpanNameOf(req: object, res: object): string | undefined {
  const labelsOf = (res as Partial<Response>).locals?.labelsOf as Deps['labelsOf'] | undefined;
  if (!labelsOf) return undefined;
  const request = req as Request;
  const { metricRoute } = labelsOf(request, pathOf(request));
  return metricRoute === UNMATCHED ? undefined : metricRoute;
}
