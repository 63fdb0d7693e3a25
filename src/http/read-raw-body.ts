import express, { type RequestHandler } from 'express';
import { toAppError } from '../errors/to-app-error';

/**
 * Reads the body as raw bytes. An oversized body is answered at once (413 is the first check);
 * any other reading error (a bad Content-Encoding, say) waits in `res.locals.bodyError` for the
 * dispatcher, which raises it at the body step, after authentication.
 */
export function readRawBody(limit: string): RequestHandler {
  const raw = express.raw({ type: () => true, limit });
  return (req, res, next) => {
    // A request without a body (every GET the official client sends) has nothing to read.
    const { 'content-length': length, 'transfer-encoding': encoding } = req.headers;
    if (encoding === undefined && (length === undefined || length === '0')) return next();
    raw(req, res, (err?: unknown) => {
      if (err === undefined) return next();
      const error = toAppError(err);
      if (error.code === 'PAYLOAD_TOO_LARGE') return next(error);
      res.locals.bodyError = error;
      next();
    });
  };
}
