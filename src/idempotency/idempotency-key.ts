import { AppError } from '../errors/app-error';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** 1 to 255 printable ASCII characters, as Stripe accepts (a UUID fits comfortably). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * Reads the Idempotency-Key header from its values as received (Node joins repeated headers
 * with ", ", so the distinct values are needed to tell a repeat apart). Absent: undefined.
 */
export function readIdempotencyKey(values: string[] | undefined): string | undefined {
  if (values === undefined) return undefined;
  if (values.length !== 1) throw new AppError('BAD_REQUEST', `Give the ${IDEMPOTENCY_KEY_HEADER} header once`);
  const key = values[0]!;
  if (!VALID_KEY.test(key)) {
    throw new AppError('BAD_REQUEST', `The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to 255 printable ASCII characters (a UUID, say)`);
  }
  return key;
}
