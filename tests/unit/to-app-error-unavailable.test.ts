import { KnexTimeoutError } from 'knex';
import { toAppError } from '../../src/errors/to-app-error';
import { httpStatusOf } from '../../src/errors/error-codes';

/** An error as pg or Node raise it: a message and, usually, a code. */
function raised(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

describe('toAppError while the database is unreachable', () => {
  it.each([
    ['a refused connection', raised('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', raised('read ECONNRESET', 'ECONNRESET')],
    ['admin_shutdown (57P01, a restart or pg_terminate_backend)', raised('terminating connection due to administrator command', '57P01')],
    ['cannot_connect_now (57P03, starting up)', raised('the database system is starting up', '57P03')],
    ['too_many_connections (53300)', raised('sorry, too many clients already', '53300')],
    ['connection_failure (08006)', raised('connection failure', '08006')],
    ['protocol_violation (08P01)', raised('protocol violation', '08P01')],
    ["knex's pool acquire timeout", new KnexTimeoutError('Knex: Timeout acquiring a connection. The pool is probably full.')],
    ["pg's socket closing under a query", raised('Connection terminated unexpectedly')],
    ["pg's connection timeout", raised('timeout expired')],
    ["pg's query timeout on a silent socket", raised('Query read timeout')],
    ["Citus losing a worker's connection under a COMMIT (XX000)", raised('COMMIT; - could not commit transaction for shard 102518 on at least one active node', 'XX000')],
  ])('answers 503 SERVICE_UNAVAILABLE with Retry-After: 1 for %s, without the cause in the message', (_, cause) => {
    const error = toAppError(cause);
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(httpStatusOf(error.code)).toBe(503);
    expect(error.headers).toEqual({ 'Retry-After': '1' });
    expect(error.message).toBe('The database is unavailable; retry shortly');
    expect(error.cause).toBe(cause);
  });

  it('answers 503 naming the delay when statement_timeout cancels a statement (57014)', () => {
    const error = toAppError(raised('canceling statement due to statement timeout', '57014'));
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.message).toBe('The database did not answer in time; retry shortly');
    expect(error.headers).toEqual({ 'Retry-After': '1' });
  });

  it('keeps other SQLSTATE classes that look alike as 500 (08 only as a whole class, not as a prefix of longer codes)', () => {
    expect(toAppError(raised('undefined column', '42703')).code).toBe('INTERNAL_SERVER_ERROR');
    expect(toAppError(raised('odd', '080000')).code).toBe('INTERNAL_SERVER_ERROR');
    expect(toAppError(raised('could not open relation', 'XX000')).code).toBe('INTERNAL_SERVER_ERROR');
  });
});
