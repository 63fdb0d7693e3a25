import { AppError } from '../../src/errors/app-error';
import { toAppError } from '../../src/errors/to-app-error';
import { isStoredError } from '../../src/idempotency/stored-errors';
import { advisoryLockId, requestFingerprint } from '../../src/idempotency/idempotency-hashes';
import { readIdempotencyKey } from '../../src/idempotency/idempotency-key';

describe('isStoredError (which handler errors a retry gets replayed)', () => {
  it.each([
    ['NOT_FOUND', true],
    ['CONFLICT', true],
    ['UNPROCESSABLE_CONTENT', true],
    ['FORBIDDEN', true],
    ['BAD_REQUEST', false],
    ['TOO_MANY_REQUESTS', false],
    ['INTERNAL_SERVER_ERROR', false],
    ['SERVICE_UNAVAILABLE', false],
  ] as const)('%s: %s', (code, stored) => {
    expect(isStoredError(new AppError(code, 'x'))).toBe(stored);
  });

  it.each([
    ['unique violation (23505)', '23505', true],
    ['serialization failure (40001)', '40001', false],
    ['deadlock (40P01)', '40P01', false],
  ])('keeps a 409 from a %s: %s', (_label, sqlState, stored) => {
    const error = toAppError(Object.assign(new Error('pg'), { code: sqlState }));
    expect(error.code).toBe('CONFLICT');
    expect(isStoredError(error)).toBe(stored);
  });
});

describe('idempotency hashes', () => {
  it('fingerprints the procedure and the exact body bytes', () => {
    const body = Buffer.from('{"json":{"name":"Ada"}}');
    expect(requestFingerprint('leads.create', body)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint('leads.create', body)).toBe(requestFingerprint('leads.create', Buffer.from(body)));
    expect(requestFingerprint('leads.create', body)).not.toBe(requestFingerprint('contacts.create', body));
    expect(requestFingerprint('leads.create', body)).not.toBe(requestFingerprint('leads.create', Buffer.from('{"json": {"name":"Ada"}}')));
  });

  it('gives a signed 64-bit lock id that depends on workspace, caller and key', () => {
    const id = advisoryLockId('org_a', 'key_a', 'k1');
    expect(id).toBe(advisoryLockId('org_a', 'key_a', 'k1'));
    expect(id >= -(2n ** 63n) && id < 2n ** 63n).toBe(true);
    const others = [advisoryLockId('org_b', 'key_a', 'k1'), advisoryLockId('org_a', 'key_b', 'k1'), advisoryLockId('org_a', 'key_a', 'k2')];
    expect(new Set([id, ...others]).size).toBe(4);
    // The separator keeps the parts apart: ("a", "bc") is not ("ab", "c").
    expect(advisoryLockId('a', 'bc', 'k')).not.toBe(advisoryLockId('ab', 'c', 'k'));
  });
});

describe('readIdempotencyKey', () => {
  it('answers undefined without the header and the key with one value', () => {
    expect(readIdempotencyKey(undefined)).toBeUndefined();
    expect(readIdempotencyKey(['~ !'])).toBe('~ !');
  });

  it.each([[[]], [['a', 'b']], [['']], [['x'.repeat(256)]], [['caf\u00e9']], [['a\u0000b']], [['a\u007fb']]])('refuses %j with a 400', (values) => {
    expect(() => readIdempotencyKey(values)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });
});
