import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { ERROR_CODES, httpStatusOf, isTrpcCode, jsonRpcCodeOf, type ErrorCode } from '../../src/errors/error-codes';
import { toAppError } from '../../src/errors/to-app-error';
import { AppError } from '../../src/errors/app-error';

/** tRPC v11's numbers and statuses, written out as the issue states them. */
const EXPECTED: [ErrorCode, number, number][] = [
  ['BAD_REQUEST', -32600, 400],
  ['UNAUTHORIZED', -32001, 401],
  ['FORBIDDEN', -32003, 403],
  ['NOT_FOUND', -32004, 404],
  ['METHOD_NOT_SUPPORTED', -32005, 405],
  ['TIMEOUT', -32008, 408],
  ['CONFLICT', -32009, 409],
  ['PAYLOAD_TOO_LARGE', -32013, 413],
  ['UNSUPPORTED_MEDIA_TYPE', -32015, 415],
  ['UNPROCESSABLE_CONTENT', -32022, 422],
  ['TOO_MANY_REQUESTS', -32029, 429],
  ['REQUEST_HEADER_FIELDS_TOO_LARGE', -32031, 431],
  ['INTERNAL_SERVER_ERROR', -32603, 500],
];

describe('error codes', () => {
  it.each(EXPECTED)('%s is JSON-RPC %i with HTTP %i', (code, number, status) => {
    expect(jsonRpcCodeOf(code)).toBe(number);
    expect(httpStatusOf(code)).toBe(status);
  });

  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  const trpcCodes = codes.filter(isTrpcCode);
  const beyondTrpc = codes.filter((code) => !isTrpcCode(code));

  it.each(trpcCodes)('%s has the number and status @trpc/server v11 gives it', (code) => {
    const trpcCode = code as keyof typeof TRPC_ERROR_CODES_BY_KEY;
    expect(jsonRpcCodeOf(code)).toBe(TRPC_ERROR_CODES_BY_KEY[trpcCode]);
    expect(httpStatusOf(code)).toBe(getHTTPStatusCodeFromError(new TRPCError({ code: trpcCode })));
  });

  it('marks as beyond tRPC exactly the codes @trpc/server v11 lacks (the HTTP parser\'s 431)', () => {
    expect(beyondTrpc).toEqual(['REQUEST_HEADER_FIELDS_TOO_LARGE']);
    for (const code of beyondTrpc) expect(Object.keys(TRPC_ERROR_CODES_BY_KEY)).not.toContain(code);
  });

  it.each(beyondTrpc)('%s is numbered by tRPC\'s rule (-32000 less the status\'s last two digits) and clashes with no tRPC number', (code) => {
    expect(jsonRpcCodeOf(code)).toBe(-32000 - (httpStatusOf(code) % 100));
    expect(Object.values(TRPC_ERROR_CODES_BY_KEY)).not.toContain(jsonRpcCodeOf(code));
  });
});

describe('toAppError', () => {
  it('passes an AppError through unchanged', () => {
    const error = new AppError('NOT_FOUND', 'No lead "x" in this workspace');
    expect(toAppError(error)).toBe(error);
  });

  it('maps a PostgreSQL unique violation (23505) to CONFLICT without the SQL detail', () => {
    const pgError = Object.assign(new Error('duplicate key value violates unique constraint "leads_pkey"'), { code: '23505' });
    const error = toAppError(pgError);
    expect(error.code).toBe('CONFLICT');
    expect(error.message).toBe('A record with these values already exists');
    expect(error.cause).toBe(pgError);
  });

  it('maps a foreign-key violation (23503) to CONFLICT', () => {
    expect(toAppError({ code: '23503', message: 'violates foreign key constraint' }).code).toBe('CONFLICT');
  });

  it('maps invalid text representation (22P02) to BAD_REQUEST', () => {
    expect(toAppError({ code: '22P02', message: 'invalid input syntax' }).code).toBe('BAD_REQUEST');
  });

  it('maps body-parser entity.too.large to PAYLOAD_TOO_LARGE (413)', () => {
    const bodyError = Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413, expose: true });
    const error = toAppError(bodyError);
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(httpStatusOf(error.code)).toBe(413);
    expect(error.message).toBe('Request body is larger than the limit');
  });

  it('maps an unsupported body charset to UNSUPPORTED_MEDIA_TYPE', () => {
    expect(toAppError({ type: 'charset.unsupported', status: 415 }).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('maps a refused database connection to SERVICE_UNAVAILABLE (503), not a 500', () => {
    const error = toAppError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(httpStatusOf(error.code)).toBe(503);
    expect(error.message).not.toMatch(/127\.0\.0\.1|5432/);
  });

  it.each([
    ['an Error', new Error('secret SQL detail: select * from api_keys')],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'secret')")],
    ['a string', 'secret string'],
    ['null', null],
    ['undefined', undefined],
    ['an unknown pg code', { code: 'XX000', message: 'secret internal error' }],
  ])('maps %s to INTERNAL_SERVER_ERROR with a generic message', (_label, thrown) => {
    const error = toAppError(thrown);
    expect(error).toBeInstanceOf(AppError);
    expect(error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(error.message).toBe('An unexpected error occurred');
    expect(error.cause).toBe(thrown);
  });
});
