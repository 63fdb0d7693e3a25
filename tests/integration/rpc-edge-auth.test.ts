import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey, createOrg, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { createEdgeRegistry, expectRpcError } from '../helpers/rpc-edge-fixtures';
import { generateApiKeySecret } from '../../src/domain/api-key-secret';
import * as apiKeysQueries from '../../src/db/api-keys';

const ctx = createTestContext();
const uncached = createTestContext({ keyCacheTtlMs: 0 });
const longCache = createTestContext({ keyCacheTtlMs: 60_000 });
const edge = createEdgeRegistry();
const custom = createTestContext({ registry: edge.registry });
afterAll(async () => {
  await ctx.close();
  await uncached.close();
  await longCache.close();
  await custom.close();
});

const WWW_AUTHENTICATE = 'Bearer realm="workspace-api"';

function getAllWith(authorization: string | undefined) {
  const req = request(ctx.app).get('/api/v1/rpc/leads.getAll');
  return authorization === undefined ? req : req.set('Authorization', authorization);
}

function expectUnauthorized(res: { status: number; body: any; headers: Record<string, string> }, message: RegExp) {
  const error = expectRpcError(res, 'UNAUTHORIZED', 'leads.getAll');
  expect(error.message).toMatch(message);
  expect(res.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
}

/** A key with its last character changed: still the key's shape, but the checksum no longer matches. */
function withBadChecksum(key: string): string {
  const last = key.slice(-1);
  return key.slice(0, -1) + (last === 'A' ? 'B' : 'A');
}

describe('GET leads.getAll: 401 UNAUTHORIZED', () => {
  it('answers 401 with WWW-Authenticate when the Authorization header is missing', async () => {
    expectUnauthorized(await getAllWith(undefined), /^Missing Authorization header/);
  });

  it.each([
    ['the Basic scheme', (key: string) => `Basic ${Buffer.from(`user:${key}`).toString('base64')}`],
    ['the key without a scheme', (key: string) => key],
    ['"Token <key>"', (key: string) => `Token ${key}`],
    ['"Bearer" with no key', () => 'Bearer '],
  ])('answers 401 Malformed Authorization header for %s', async (_label, header) => {
    const ws = await createWorkspace(ctx.db);
    expectUnauthorized(await getAllWith(header(ws.key)), /^Malformed Authorization header/);
  });

  it.each([
    ['a key of the wrong shape', 'not-a-key'],
    ['a key with the wrong prefix', `wsx_${'a'.repeat(40)}`],
    ['a key one character short', `wsk_${'a'.repeat(39)}`],
  ])('answers 401 Invalid API key for %s', async (_label, key) => {
    expectUnauthorized(await getAllWith(`Bearer ${key}`), /^Invalid API key$/);
  });

  it('answers 401 for a real key with one character changed (checksum mismatch)', async () => {
    const ws = await createWorkspace(ctx.db);
    expect(withBadChecksum(ws.key)).toMatch(/^wsk_[0-9A-Za-z]{40}$/);
    expectUnauthorized(await getAllWith(`Bearer ${withBadChecksum(ws.key)}`), /^Invalid API key$/);
  });

  it('answers 401 for a well-formed key with a valid checksum that was never issued', async () => {
    const { secret } = generateApiKeySecret();
    expectUnauthorized(await getAllWith(`Bearer ${secret}`), /^Invalid API key$/);
  });

  it('answers 401 for a key whose expiry has passed, and 200 for one expiring later', async () => {
    const org = await createOrg(ctx.db);
    const expired = await createKey(ctx.db, org.id, { expiresAt: new Date(Date.now() - 1000) });
    const live = await createKey(ctx.db, org.id, { expiresAt: new Date(Date.now() + 3_600_000) });
    expectUnauthorized(await getAllWith(`Bearer ${expired.key}`), /expired/);
    expect((await getAllWith(`Bearer ${live.key}`)).status).toBe(200);
  });

  it('applies expiry at once, even to a key a 60-second cache has just verified', async () => {
    const org = await createOrg(longCache.db);
    const expiresAt = new Date(Date.now() + 1500);
    const { key } = await createKey(longCache.db, org.id, { expiresAt });
    expect((await rpcGet(longCache.app, 'leads.getAll', undefined, key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 50));
    const res = await rpcGet(longCache.app, 'leads.getAll', undefined, key);
    expect(expectRpcError(res, 'UNAUTHORIZED', 'leads.getAll').message).toMatch(/expired/);
  });

  it('answers 401 on the next call after revocation when keys are not cached', async () => {
    const ws = await createWorkspace(uncached.db);
    expect((await rpcGet(uncached.app, 'leads.getAll', undefined, ws.key)).status).toBe(200);
    const revoked = await apiKeysQueries.revoke(uncached.db, ws.keyId);
    expect(revoked?.revokedAt).toBeInstanceOf(Date);
    const row = await uncached.db('api_keys').where({ org_id: ws.org.id, id: ws.keyId }).first();
    expect(row.revoked_at).toBeInstanceOf(Date);
    const res = await rpcGet(uncached.app, 'leads.getAll', undefined, ws.key);
    expectUnauthorized(res, /revoked/);
  });

  it('honours revocation within 1 second with the default 1000ms key cache', async () => {
    const ws = await createWorkspace(ctx.db);
    expect((await rpcGet(ctx.app, 'leads.getAll', undefined, ws.key)).status).toBe(200);
    await apiKeysQueries.revoke(ctx.db, ws.keyId);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expectUnauthorized(await rpcGet(ctx.app, 'leads.getAll', undefined, ws.key), /revoked/);
  });

  it('answers 401 for a request carrying a valid key only in cookies (cookies are never read)', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app)
      .get('/api/v1/rpc/leads.getAll')
      .set('Cookie', `session=${ws.key}; Authorization=Bearer%20${ws.key}; token=${ws.key}`);
    expectUnauthorized(res, /^Missing Authorization header/);
  });

  it('authenticates a valid key and records its use', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await getAllWith(`Bearer ${ws.key}`);
    expect(res.status).toBe(200);
    expect(res.headers).not.toHaveProperty('www-authenticate');
    let lastUsed: Date | null = null;
    for (let i = 0; i < 20 && !lastUsed; i += 1) {
      lastUsed = (await ctx.db('api_keys').where({ org_id: ws.org.id, id: ws.keyId }).first()).last_used_at;
      if (!lastUsed) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(lastUsed).toBeInstanceOf(Date);
  });

  it('writes last use at most once a minute per key', async () => {
    const ws = await createWorkspace(uncached.db);
    const where = { org_id: ws.org.id, id: ws.keyId };
    const halfMinuteAgo = new Date(Date.now() - 30_000);
    await uncached.db('api_keys').where(where).update({ last_used_at: halfMinuteAgo });
    for (let i = 0; i < 3; i += 1) expect((await rpcGet(uncached.app, 'leads.getAll', undefined, ws.key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await uncached.db('api_keys').where(where).first()).last_used_at).toEqual(halfMinuteAgo);
  });
});

describe('POST leads.create: 403 FORBIDDEN', () => {
  it.each(['FREE', 'PRO'] as const)('answers 403 naming the BUSINESS tier for a %s workspace, and stores nothing', async (tier) => {
    const ws = await createWorkspace(ctx.db, { tier });
    const res = await rpcPost(ctx.app, 'leads.create', { name: unique('Tier'), phone: '+442079460123' }, ws.key);
    const error = expectRpcError(res, 'FORBIDDEN', 'leads.create');
    expect(error.message).toMatch(/BUSINESS tier/);
    expect(error.message).toMatch(new RegExp(`on ${tier}$`));
    expect(await ctx.db('leads').where({ org_id: ws.org.id }).first()).toBeUndefined();
  });

  it('answers 403 "missing scope: leads.create" for a key with only leads.read, and stores nothing', async () => {
    const org = await createOrg(ctx.db);
    const { key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
    const res = await rpcPost(ctx.app, 'leads.create', { name: unique('Scope'), phone: '+442079460123' }, key);
    expect(expectRpcError(res, 'FORBIDDEN', 'leads.create').message).toContain('missing scope: leads.create');
    expect(await ctx.db('leads').where({ org_id: org.id }).first()).toBeUndefined();
    expect((await rpcGet(ctx.app, 'leads.getAll', undefined, key)).status).toBe(200);
  });
});

describe('GET edge.hiddenRead (exposed: false)', () => {
  it('answers 403 not exposed, even to a key with every scope, and never runs the handler', async () => {
    const ws = await createWorkspace(custom.db);
    const before = edge.calls.hiddenRead;
    const res = await rpcGet(custom.app, 'edge.hiddenRead', undefined, ws.key);
    expect(expectRpcError(res, 'FORBIDDEN', 'edge.hiddenRead').message).toBe('edge.hiddenRead is not exposed to the API');
    expect(res.text).not.toContain('app only');
    expect(edge.calls.hiddenRead).toBe(before);
  });

  it('serves an exposed procedure of the same registry to the same key', async () => {
    const ws = await createWorkspace(custom.db);
    const at = new Date('2032-02-03T04:05:06.007Z');
    const res = await rpcPost(custom.app, 'edge.echo', { at, count: 3 }, ws.key);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ at, count: 3, orgId: ws.org.id });
  });
});
