import { AppError } from '../errors/app-error';
import { nestsDeeperThan } from './json-depth';

/**
 * Limits on what an action call may send, besides the body size (BODY_LIMIT, 413) and the
 * per-field bounds of each input schema. Each is answered 400 in the envelope.
 */

/**
 * Largest GET `input` value: 8 KiB of UTF-8 once percent-decoded. Fully percent-encoded that is at
 * most 24 KiB of request line, well inside the server's header limit (MAX_HEADER_SIZE, 512 KiB), so
 * every input up to the limit reaches us and anything many times over it is answered here, in the
 * envelope, rather than by Node's parser with a 431 outside it. The largest valid read input (a leads
 * search with a cursor) is under 4 KiB even percent-encoded.
 */
export const MAX_GET_INPUT_BYTES = 8 * 1024;

/** Deepest nesting of arrays and objects in an envelope, the envelope itself counting as one. */
export const MAX_JSON_DEPTH = 64;

export function assertGetInputSize(param: string): void {
  const bytes = Buffer.byteLength(param, 'utf8');
  if (bytes > MAX_GET_INPUT_BYTES) {
    throw new AppError('BAD_REQUEST', `The "input" query parameter is ${bytes} bytes long; the limit is ${MAX_GET_INPUT_BYTES}`);
  }
}

/** `what`: the envelope of an action call, or the body of a REST write. */
export function assertJsonDepth(text: string, what = 'The envelope'): void {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new AppError('BAD_REQUEST', `${what} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
  }
}
