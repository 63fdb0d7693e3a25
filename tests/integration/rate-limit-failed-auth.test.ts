import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { expectRpcError } from '../helpers/rpc-edge-fixtures';
import { memoryLimiter, rateLimitOf } from '../helpers/rate-limit';

/**
 * Failed authentications per client address (3 a minute here): past the budget an address gets
 * 429 before its key is looked at. The tests stand behind a trusted loopback proxy, so each
 * request's X-Forwarded-For is its client address.
 */

const proxied = createTestContext({ rateLimiter: memoryLimiter({ failedAuth: 3 }), trustProxy: ['loopback'] });
const direct = createTestContext({ rateLimiter: memoryLimiter({ failedAuth: 3 }) });
afterAll(async () => {
  await proxied.close();
  await direct.close();
});

let lastOctet = 0;
/** A documentation address (RFC 5737) no other test in this file uses. */
const newAddress = () => `198.51.100.${++lastOctet}`;

function call(app: typeof proxied.app, key: string | null, from: string, path = '/api/v1/rpc/leads.getAll') {
  const req = request(app).get(path).set('X-Forwarded-For', from);
  return key === null ? req : req.set('Authorization', `Bearer ${key}`);
}

describe('failed authentications from one address', () => {
  it('answer 401 with "auth";q=3;w=60 and r counting down 2, 1, 0, then 429 with Retry-After, even for a valid key', async () => {
    const ws = await createWorkspace(proxied.db);
    const address = newAddress();
    // A wrong key, no key at all, a forged playground token: each is a failed authentication.
    const forgedToken = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const failures = [await call(proxied.app, 'wsk_guess1', address), await call(proxied.app, null, address), await call(proxied.app, forgedToken, address)];
    for (const res of failures) expectRpcError(res, 'UNAUTHORIZED', 'leads.getAll');
    expect(failures.map(rateLimitOf)).toEqual([2, 1, 0].map((r) => ({ name: 'auth', q: 3, w: 60, r, t: expect.any(Number) })));

    const guess = await call(proxied.app, 'wsk_guess4', address);
    const valid = await call(proxied.app, ws.key, address);

    for (const res of [guess, valid]) {
      expect(expectRpcError(res, 'TOO_MANY_REQUESTS', 'leads.getAll').message).toMatch(/^Too many failed authentications from this address: retry in \d+ s$/);
      expect(rateLimitOf(res)).toMatchObject({ name: 'auth', q: 3, r: 0 });
      expect(res.headers['retry-after']).toBe(String(rateLimitOf(res).t));
    }
  });

  it('do not touch another address: a valid key from it is answered 200 with its key fields, a wrong one 401 with r=2', async () => {
    const ws = await createWorkspace(proxied.db);
    const guesser = newAddress();
    for (let i = 0; i < 4; i++) await call(proxied.app, `wsk_guess${i}`, guesser);
    expect((await call(proxied.app, ws.key, guesser)).status).toBe(429);

    const elsewhere = newAddress();
    const valid = await call(proxied.app, ws.key, elsewhere);
    expect(valid.status).toBe(200);
    expect(rateLimitOf(valid)).toMatchObject({ name: 'key', q: 1200 });
    expect(rateLimitOf(await call(proxied.app, 'wsk_guess', elsewhere))).toMatchObject({ name: 'auth', r: 2 });
  });

  it('are not counted when authentication succeeds', async () => {
    const ws = await createWorkspace(proxied.db);
    const address = newAddress();
    for (let i = 0; i < 5; i++) expect((await call(proxied.app, ws.key, address)).status).toBe(200);
    expect(rateLimitOf(await call(proxied.app, 'wsk_guess', address))).toMatchObject({ name: 'auth', r: 2 });
  });

  it('are limited on the REST list too, with one budget shared with the action endpoints', async () => {
    const ws = await createWorkspace(proxied.db);
    const address = newAddress();
    await call(proxied.app, 'wsk_guess1', address);
    await call(proxied.app, 'wsk_guess2', address, '/api/v1/leads');
    expect(rateLimitOf(await call(proxied.app, 'wsk_guess3', address, '/api/v1/leads'))).toMatchObject({ name: 'auth', r: 0 });

    const res = await call(proxied.app, ws.key, address, '/api/v1/leads');
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: { code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/^Too many failed authentications/) } });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('count an IPv6 /64 as one address', async () => {
    for (let i = 1; i <= 3; i++) await call(proxied.app, 'wsk_guess', `2001:db8:7:7::${i}`);
    expect((await call(proxied.app, 'wsk_guess', '2001:db8:7:7:ffff::1')).status).toBe(429);
    expect((await call(proxied.app, 'wsk_guess', '2001:db8:7:8::1')).status).toBe(401);
  });
});

describe('without TRUST_PROXY', () => {
  it('ignores X-Forwarded-For: the socket\'s address is the client, so naming another address does not escape the limit', async () => {
    const ws = await createWorkspace(direct.db);
    for (let i = 0; i < 3; i++) await call(direct.app, `wsk_guess${i}`, newAddress());
    expect((await call(direct.app, ws.key, newAddress())).status).toBe(429);
  });
});
