import { AppError } from './app-error';

/** PostgreSQL SQLSTATEs that mean the caller, not the server, is at fault. */
const PG_CODES: Record<string, { code: AppError['code']; message: string }> = {
  '23505': { code: 'CONFLICT', message: 'A record with these values already exists' },
  '23503': { code: 'CONFLICT', message: 'The change conflicts with related records' },
  '22001': { code: 'BAD_REQUEST', message: 'A value is too long' },
  '22P02': { code: 'BAD_REQUEST', message: 'A value has the wrong format' },
  '22021': { code: 'BAD_REQUEST', message: 'A value contains a character that cannot be stored' },
  '22003': { code: 'BAD_REQUEST', message: 'A number is out of range' },
  '40001': { code: 'CONFLICT', message: 'The record was changed by another request; retry' },
  '40P01': { code: 'CONFLICT', message: 'The record was changed by another request; retry' },
};

const UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08006', '08001']);

/**
 * Maps anything thrown to an AppError. Errors from body parsing, PostgreSQL and the pool are
 * translated here, in one place; anything unknown becomes a generic 500 that carries no detail.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { code?: unknown; type?: unknown; status?: unknown; message?: unknown } | null;
  if (e && typeof e === 'object') {
    if (e.type === 'entity.too.large') {
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than the limit', { cause: err });
    }
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding or charset', { cause: err });
    }
    if (e.type === 'request.aborted' || e.type === 'request.size.invalid' || e.status === 400) {
      return new AppError('BAD_REQUEST', 'The request body could not be read', { cause: err });
    }
    if (typeof e.code === 'string') {
      const known = PG_CODES[e.code];
      if (known) return new AppError(known.code, known.message, { cause: err });
      if (UNAVAILABLE.has(e.code)) {
        return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly', { cause: err });
      }
    }
    if (typeof e.message === 'string' && /timeout acquiring a connection|Connection terminated/i.test(e.message)) {
      return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly', { cause: err });
    }
  }
  return new AppError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred', { cause: err });
}
