import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '../errors/app-error';
import { httpStatusOf } from '../errors/error-codes';
import { toAppError } from '../errors/to-app-error';
import { encodeError } from '../rpc/envelope';
import type { Logger } from '../logger';
import { sendJson } from './send-json';
import { allowedMethodsOf, methodNotAllowed } from './method-not-allowed';

import { RPC_PREFIX, procedurePathOf } from './rpc-paths';

/**
 * The one place errors become answers: the tRPC envelope under /api/v1/rpc, the REST body
 * `{"error":{"code","message","issues"?}}` elsewhere. Unknown errors are logged and answered
 * with a generic 500 that carries no message, SQL or stack.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = toAppError(err);
    const status = httpStatusOf(error.code);
    if (error.code === 'SERVICE_UNAVAILABLE') {
      // Retryable and self-healing: the request's own line says why, at warn (request-log.ts),
      // short, not a stack apiece, as an outage refuses every request at once.
      const cause = (error.cause ?? err) as { code?: unknown; message?: unknown };
      res.locals.unavailableCause = { code: cause.code, message: cause.message };
    } else if (status >= 500) {
      logger.error({ err: error.cause ?? err, reqId: res.locals.requestId, path: req.path }, error.message);
    }
    // The envelope's code, for the key's request log (request-log.ts).
    res.locals.errorCode = error.code;
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
    sendJson(res, status, errorText(error, req.path));
  };
}

/** The error's body for a request to `path`: the tRPC envelope under /api/v1/rpc, the REST body elsewhere. */
export function errorBody(error: AppError, path: string): unknown {
  if (path === RPC_PREFIX || path.startsWith(`${RPC_PREFIX}/`)) return encodeError(error, procedurePathOf(path));
  const body: Record<string, unknown> = { code: error.code, message: error.message };
  if (error.issues) body.issues = error.issues;
  return { error: body };
}

export function errorText(error: AppError, path: string): string {
  return JSON.stringify(errorBody(error, path));
}

/** No route took the request: 405 with `Allow` when the path is served with other methods, else 404. */
export const notFound: RequestHandler = (req) => {
  const allowed = allowedMethodsOf(req.app, req.path);
  if (allowed.length > 0) throw methodNotAllowed(req.method, req.path, allowed);
  throw new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`);
};
