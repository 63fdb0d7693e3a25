import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, context, propagation, trace, type Attributes, type Link, type Span, type Tracer } from '@opentelemetry/api';
import type { Request, RequestHandler, Response } from 'express';
import { serverSpanNameOf } from './request-log';
import { pathOf } from './route-label';
import { AppError } from '../errors/app-error';
import type { TracingSettings } from './tracing-settings';

// The hand-written spans (a request's server span, a procedure, a webhook delivery, a live-update
// fan-out) and the trace context an event keeps. Everything here is a no-op behind one `tracer === undefined` test when
// tracing is off: tracing-start.ts loads the SDK only when the OTEL_* variables ask for it. Span
// attributes are ids, names of procedures and counts only: never an input, key, secret, header,
// URL or personal field.

let tracer: Tracer | undefined;
let active: { settings: TracingSettings; shutdown(): Promise<void> } | undefined;

/** Called once by tracing-sdk.ts when tracing is on. */
export function useTracing(settings: TracingSettings, tracerOf: Tracer, shutdown: () => Promise<void>): void {
  tracer = tracerOf;
  active = { settings, shutdown };
}

/** What the start log line says (process-start.ts); undefined when tracing is off. */
export function tracingSettings(): TracingSettings | undefined {
  return active?.settings;
}

/** Exports the spans still buffered and stops the SDK; nothing when tracing is off. Bounded by the caller's exit timer. */
export async function flushTracing(): Promise<void> {
  const stopping = active;
  active = undefined;
  tracer = undefined;
  await stopping?.shutdown().catch(() => undefined);
}

/** Probes and scrapes arrive every few seconds: no trace (their request log line is at debug too). */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The server span of each request, or undefined when tracing is off (app.ts mounts it first). By
 * hand rather than with instrumentation-http, which binds every request's emitters to the context
 * and computes two generations of attributes: tracing then costs a request about a third less CPU
 * (docs/decisions.md, "Traces"). Continues the caller's W3C traceparent (the registered
 * propagator). Method, route pattern, status; never the path (it may hold an external id) or its
 * query string (it may carry `?input=`), no header, body or client address.
 */
export function traceRequests(): RequestHandler | undefined {
  const serverTracer = tracer;
  if (!serverTracer) return undefined;
  function onClose(this: Response): void {
    const span = this.locals.serverSpan as Span;
    const status = this.headersSent ? this.statusCode : 499;
    const name = serverSpanNameOf(this.req, this);
    if (name) span.updateName(name).setAttribute('http.route', name);
    span.setAttribute('http.response.status_code', status);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
  return (req: Request, res: Response, next) => {
    const path = pathOf(req);
    if (UNTRACED_PATHS.has(path)) return next();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = serverTracer.startSpan(req.method, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method, 'url.scheme': 'http', 'network.protocol.version': req.httpVersion },
    }, parent);
    res.locals.serverSpan = span;
    res.on('close', onClose);
    context.with(trace.setSpan(parent, span), next);
  };
}

/**
 * The span of one procedure call (the RPC and REST routes share runProcedure): its name, query or
 * mutation, the workspace and the key or member, and on failure the error's code (never its
 * message, which may quote the input).
 */
export function traceProcedure<T>(procedure: { name: string; method: string }, principal: { orgId: string; id: string; kind: string }, run: () => Promise<T>): Promise<T> {
  if (!tracer) return run();
  const attributes: Attributes = {
    'rpc.system': 'workspace-api',
    'rpc.method': procedure.name,
    'workspace.procedure.type': procedure.method === 'GET' ? 'query' : 'mutation',
    'workspace.org_id': principal.orgId,
    'workspace.principal.kind': principal.kind,
    'workspace.principal.id': principal.id,
  };
  return tracer.startActiveSpan(procedure.name, { attributes }, (span) => ended(span, run));
}

/**
 * The span of one webhook delivery attempt: a trace of its own (it runs long after the request),
 * linked to the span of the call that recorded the event when the event kept one (`traceParent`).
 * `run` answers the attempt's result, recorded on the span.
 */
export function traceDelivery(
  claim: { id: string; orgId: string; endpointId: string; attempt: number; event: { id: string; type: string; traceParent?: string | null } },
  run: (span: Span | undefined) => Promise<void>,
): Promise<void> {
  if (!tracer) return run(undefined);
  const recordedBy = spanContextOf(claim.event.traceParent);
  const links: Link[] = recordedBy ? [{ context: recordedBy }] : [];
  const attributes: Attributes = {
    'workspace.org_id': claim.orgId,
    'workspace.webhook.delivery_id': claim.id,
    'workspace.webhook.endpoint_id': claim.endpointId,
    'workspace.webhook.attempt': claim.attempt,
    'workspace.event.id': claim.event.id,
    'workspace.event.type': claim.event.type,
  };
  return tracer.startActiveSpan('webhook.deliver', { root: true, kind: SpanKind.CLIENT, links, attributes }, (span) => ended(span, () => run(span)));
}

/** One round of a workspace's live-update fan-out (src/live/event-feeds.ts): a trace of its own, with its counts set by `run`. */
export function traceFanOut<T>(orgId: string, run: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!tracer) return run(undefined);
  return tracer.startActiveSpan('live.fan_out', { root: true, attributes: { 'workspace.org_id': orgId } }, (span) => ended(span, () => run(span)));
}

/**
 * The active span's context as a W3C `traceparent`, for an event to keep (its delivery's span
 * links to it); null when tracing is off or the span is not sampled (a link to it would lead nowhere).
 */
export function currentTraceParent(): string | null {
  if (!tracer) return null;
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || (context.traceFlags & TraceFlags.SAMPLED) === 0) return null;
  return `00-${context.traceId}-${context.spanId}-01`;
}

const TRACE_PARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

function spanContextOf(traceParent: string | null | undefined) {
  const match = traceParent ? TRACE_PARENT.exec(traceParent) : null;
  if (!match) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16), isRemote: true };
}

async function ended<T>(span: Span, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const code = err instanceof AppError ? err.code : 'INTERNAL_SERVER_ERROR';
    span.setAttribute('workspace.error_code', code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: code });
    throw err;
  } finally {
    span.end();
  }
}
