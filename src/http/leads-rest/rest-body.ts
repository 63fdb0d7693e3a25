import type { Request, Response } from 'express';
import { AppError } from '../../errors/app-error';
import { assertJsonBody } from '../../rpc/dispatch';
import { assertJsonDepth } from '../../rpc/input-limits';

/**
 * A REST write's body as plain JSON (no envelope), with the action endpoints' rules: 415 unless
 * declared UTF-8 JSON, 400 when missing, malformed or nested too deep. Its size (413) was checked
 * while reading it (readRawBody).
 */
export function readRestBody(req: Request, res: Response): unknown {
  assertJsonBody(req.headers['content-type'], res.locals.bodyError);
  const body: unknown = req.body;
  if (!Buffer.isBuffer(body) || body.length === 0) throw new AppError('BAD_REQUEST', 'Missing body: send the fields as a JSON object');
  const text = body.toString('utf8');
  assertJsonDepth(text, 'The body');
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('BAD_REQUEST', 'Malformed JSON: send the fields as a JSON object');
  }
}

/** The raw body bytes, for the Idempotency-Key fingerprint. */
export function bodyBytesOf(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}
