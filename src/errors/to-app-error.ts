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

/**
 * The unique indexes of external ids (migration 20261212120000, `<table>_org_external_id_key`):
 * a value another record of the resource holds in the workspace, answered naming the field.
 */
const EXTERNAL_ID_KEY = /^(leads|contacts|clients)_org_external_id_key(?:_\d+)?$/; // Citus names the shard's index: _<shard id>
const RECORD_NOUNS: Record<string, string> = { leads: 'lead', contacts: 'contact', clients: 'client' };

/** The violated constraint's name: the error's field, or (Citus relays a worker's error without it) its quoted name in the message. */
function constraintOf(err: unknown): string {
  const { constraint, message } = err as { constraint?: unknown; message?: unknown };
  if (typeof constraint === 'string') return constraint;
  return (typeof message === 'string' && /unique constraint "([^"]+)"/.exec(message)?.[1]) || '';
}

function externalIdTaken(table: string, cause: unknown): AppError {
  const message = `another ${RECORD_NOUNS[table]} of this workspace holds this external id`;
  return new AppError('CONFLICT', `externalId: ${message}`, { cause, issues: [{ path: ['externalId'], message }] });
}

/**
 * The database cannot be reached or is restarting: socket errors, admin_shutdown (57P01),
 * crash_shutdown (57P02), cannot_connect_now (57P03, starting up or shutting down),
 * too_many_connections (53300) and every connection exception (class 08).
 */
const UNAVAILABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '53300',
]);

/** What knex and pg say, without a code, when a connection could not be had or died under a query. */
const UNAVAILABLE_MESSAGE = /timeout acquiring a connection|Connection terminated|timeout expired|Query read timeout|not queryable/i;

/**
 * Citus, when a worker's connection dies under a COMMIT (XX000, ErrorIfPostCommitFailedShardPlacements):
 * the node failed, not the request. Whether the write committed is unknown to Citus itself; the
 * write's Idempotency-Key replay tells (docs/errors-and-limits.md).
 */
const CITUS_NODE_LOST = /could not commit transaction (for shard \d+ )?on (at least one|any) active node/i;

/** statement_timeout (DB_STATEMENT_TIMEOUT_MS) cancelled the statement. */
const QUERY_CANCELED = '57014';

/** Clients may retry a 503 after this many seconds: a restart or a failover takes a few. */
const RETRY_AFTER = { 'Retry-After': '1' };

function unavailable(message: string, cause: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', message, { cause, headers: RETRY_AFTER });
}

/** Whether `err` answers 503 SERVICE_UNAVAILABLE: the database or one of its nodes cannot answer now. */
export function isUnavailable(err: unknown): boolean {
  return toAppError(err).code === 'SERVICE_UNAVAILABLE';
}

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
    // A path segment that is not valid percent-encoding (the router's decodeURIComponent).
    if (err instanceof URIError) return new AppError('BAD_REQUEST', 'The path is not valid percent-encoding', { cause: err });
    if (e.type === 'request.aborted' || e.type === 'request.size.invalid' || e.status === 400) {
      return new AppError('BAD_REQUEST', 'The request body could not be read', { cause: err });
    }
    if (typeof e.code === 'string') {
      const externalId = e.code === '23505' ? EXTERNAL_ID_KEY.exec(constraintOf(err)) : null;
      if (externalId) return externalIdTaken(externalId[1]!, err);
      const known = PG_CODES[e.code];
      if (known) return new AppError(known.code, known.message, { cause: err });
      if (UNAVAILABLE.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code)) return unavailable('The database is unavailable; retry shortly', err);
      if (e.code === QUERY_CANCELED) return unavailable('The database did not answer in time; retry shortly', err);
    }
    if (typeof e.message === 'string' && (UNAVAILABLE_MESSAGE.test(e.message) || CITUS_NODE_LOST.test(e.message))) {
      return unavailable('The database is unavailable; retry shortly', err);
    }
  }
  return new AppError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred', { cause: err });
}
