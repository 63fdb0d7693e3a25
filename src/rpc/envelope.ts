import superjson from 'superjson';
import { AppError, capText } from '../errors/app-error';
import { jsonRpcCodeOf, httpStatusOf } from '../errors/error-codes';
import { assertJsonDepth } from './input-limits';
import { metaFitsJson } from './superjson-meta';

/**
 * The tRPC wire format with the superjson transformer: inputs arrive as `{"json": ..., "meta"?: ...}`
 * and answers leave as `{"result":{"data":{"json": ..., "meta"?: ...}}}`. The request path's only
 * superjson import (the OpenAPI document's examples, src/openapi/examples.ts, use it to show the
 * wire exactly).
 */

const ENVELOPE_HINT = 'wrap the input as {"json": <input>}';

/** Reads the envelope's JSON text into the input value it carries (Dates as Dates). */
export function decodeEnvelope(text: string): unknown {
  assertJsonDepth(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError('BAD_REQUEST', `Malformed JSON: ${ENVELOPE_HINT}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !('json' in parsed || 'meta' in parsed)) {
    throw new AppError('BAD_REQUEST', `Missing envelope: ${ENVELOPE_HINT}`);
  }
  const { json, meta } = parsed as { json?: unknown; meta?: unknown };
  if (meta !== undefined && (meta === null || typeof meta !== 'object' || Array.isArray(meta))) {
    throw new AppError('BAD_REQUEST', 'Malformed envelope: "meta" must be an object');
  }
  // superjson trusts its meta; checked first, so a crafted one costs no more than a read of it.
  if (meta !== undefined && !metaFitsJson(json, meta as Record<string, unknown>)) throw metaMismatch();
  // `json` is this request's own parse: nothing to copy (superjson deep-copies unless inPlace).
  if (meta === undefined) return json;
  try {
    return superjson.deserialize({ json: json as never, meta: meta as never }, { inPlace: true });
  } catch {
    throw metaMismatch();
  }
}

/** Made only when needed: an error captures a stack trace, which no successful call should pay for. */
function metaMismatch(): AppError {
  return new AppError('BAD_REQUEST', 'Malformed envelope: "meta" does not describe "json"');
}

/** The success envelope: superjson's own serialize (a hand-written twin measured no faster). */
export function encodeResult(output: unknown): { result: { data: unknown } } {
  return { result: { data: superjson.serialize(output) } };
}

/** The tRPC error shape: the numeric JSON-RPC code is what the official client needs to read it. */
export function encodeError(error: AppError, path: string | undefined): { error: unknown } {
  const data: Record<string, unknown> = { code: error.code, httpStatus: httpStatusOf(error.code) };
  // The procedure name as called: an unknown one is the caller's text, so it is cut like any echo.
  if (path !== undefined) data.path = capText(path);
  if (error.issues) data.issues = error.issues;
  return { error: superjson.serialize({ message: error.message, code: jsonRpcCodeOf(error.code), data }) };
}

/** One streamed value as tRPC's SSE `data:` carries it: the superjson-serialised value, as JSON text. */
export function encodeStreamValue(value: unknown): string {
  return JSON.stringify(superjson.serialize(value));
}

/** A stream's `serialized-error` data: the error shape of encodeError, as JSON text. */
export function encodeStreamError(error: AppError, path: string): string {
  return JSON.stringify(encodeError(error, path).error);
}
