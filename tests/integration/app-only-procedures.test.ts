import { createTestContext } from '../helpers/test-app';
import { ALL_SCOPES, createKey, createOrg, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { createRegistry } from '../../src/rpc/registry';
import { apiKeysProcedures } from '../../src/procedures/api-keys';
import { organisationProcedures } from '../../src/procedures/organisation';
import * as apiKeysQueries from '../../src/db/api-keys';
import { generateApiKeySecret, hashApiKeySecret } from '../../src/domain/api-key-secret';
import { newId } from '../../src/domain/ids';
import type { Db } from '../../src/db/knex';

const APP_ONLY = [...apiKeysProcedures, ...organisationProcedures];
const APP_ONLY_SCOPES = ['apiKeys.read', 'apiKeys.create', 'apiKeys.update', 'organisation.update'];

// The service as deployed, and the same service with the app-only procedures exposed, so their
// handlers can be exercised through HTTP as the app would use them.
const ctx = createTestContext();
const appCtx = createTestContext({ registry: createRegistry(APP_ONLY.map((p) => ({ ...p, exposed: true }))) });
afterAll(async () => {
  await appCtx.close();
  await ctx.close();
});

/** A key row written straight to the table: createKey refuses scopes of procedures the API does not expose. */
async function insertKey(db: Db, orgId: string, scopes: string[]): Promise<{ id: string; key: string }> {
  const secret = generateApiKeySecret();
  const listing = await apiKeysQueries.insert(db, orgId, {
    id: newId('key'), memberId: null, name: unique('app key'), prefix: secret.prefix, secretHash: secret.hash, scopes, expiresAt: null,
  });
  return { id: listing.id, key: secret.secret };
}

/** The workspace's key rows, without last_used_at (written in the background by any authenticated call). */
async function keyRows(db: Db, orgId: string) {
  return db('api_keys')
    .where({ org_id: orgId })
    .orderBy('id')
    .select('id', 'member_id', 'name', 'scopes', 'prefix', 'secret_hash', 'expires_at', 'revoked_at', 'created_at');
}

describe('app-only procedures through the API', () => {
  it('stand in the registry with exposed: false, their method and their scope', () => {
    expect(APP_ONLY.map((p) => [p.name, p.method, p.scope, p.exposed])).toEqual([
      ['apiKeys.list', 'GET', 'apiKeys.read', false],
      ['apiKeys.create', 'POST', 'apiKeys.create', false],
      ['apiKeys.revoke', 'POST', 'apiKeys.update', false],
      ['apiKeys.roll', 'POST', 'apiKeys.create', false],
      ['apiKeys.getRequests', 'GET', 'apiKeys.read', false],
      ['organisation.update', 'POST', 'organisation.update', false],
    ]);
  });

  it('answers 403 "apiKeys.list is not exposed to the API" even to a key holding apiKeys.read', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await insertKey(ctx.db, ws.org.id, [...ALL_SCOPES, ...APP_ONLY_SCOPES]);
    const res = await rpcGet(ctx.app, 'apiKeys.list', undefined, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'apiKeys.list').message).toBe('apiKeys.list is not exposed to the API');
    expect(JSON.stringify(res.body)).not.toContain(ws.keyId);
  });

  it('answers 403 "apiKeys.create is not exposed to the API" even to a key holding apiKeys.create, and issues no key', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await insertKey(ctx.db, ws.org.id, [...ALL_SCOPES, ...APP_ONLY_SCOPES]);
    const before = await keyRows(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'apiKeys.create', { name: 'minted', scopes: ['leads.read'] }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'apiKeys.create').message).toBe('apiKeys.create is not exposed to the API');
    expect(await keyRows(ctx.db, ws.org.id)).toEqual(before);
  });

  it('answers 403 "apiKeys.revoke is not exposed to the API" even to a key holding apiKeys.update, and revokes nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await insertKey(ctx.db, ws.org.id, [...ALL_SCOPES, ...APP_ONLY_SCOPES]);
    const res = await rpcPost(ctx.app, 'apiKeys.revoke', { id: ws.keyId }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'apiKeys.revoke').message).toBe('apiKeys.revoke is not exposed to the API');
    expect((await keyRows(ctx.db, ws.org.id)).map((k) => k.revoked_at)).toEqual([null, null]);
    expect((await rpcGet(ctx.app, 'leads.getAll', {}, ws.key)).status).toBe(200);
  });

  it('answers 403 "organisation.update is not exposed to the API" even to a key holding organisation.update, and renames nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await insertKey(ctx.db, ws.org.id, [...ALL_SCOPES, ...APP_ONLY_SCOPES]);
    const before = await ctx.db('organisations').where({ id: ws.org.id }).first();
    const res = await rpcPost(ctx.app, 'organisation.update', { name: 'Taken over', phoneRegion: 'US' }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'organisation.update').message).toBe('organisation.update is not exposed to the API');
    expect(await ctx.db('organisations').where({ id: ws.org.id }).first()).toEqual(before);
  });

  it('answers the same 403 to an every-scope key issued the normal way (which cannot hold these scopes)', async () => {
    const ws = await createWorkspace(ctx.db);
    for (const p of APP_ONLY) {
      const res = p.method === 'GET' ? await rpcGet(ctx.app, p.name, undefined, ws.key) : await rpcPost(ctx.app, p.name, {}, ws.key);
      expect(expectRpcFailure(res, 'FORBIDDEN', p.name).message).toBe(`${p.name} is not exposed to the API`);
    }
    await expect(createKey(ctx.db, ws.org.id, { scopes: ['apiKeys.create'] })).rejects.toThrow(/Unknown scope\(s\): apiKeys.create/);
  });
});

describe('GET apiKeys.list (handler, as the app uses it)', () => {
  it("answers the workspace's keys newest first, with prefixes and scopes and never a secret or hash", async () => {
    const ws = await createWorkspace(appCtx.db);
    // Timestamps have millisecond precision: two keys made within one millisecond tie, and the
    // tie is broken by their random ids (seen on the embedded database).
    await new Promise((resolve) => setTimeout(resolve, 5));
    const appKey = await insertKey(appCtx.db, ws.org.id, ['apiKeys.read']);
    await createWorkspace(appCtx.db);
    const res = await rpcGet(appCtx.app, 'apiKeys.list', undefined, appKey.key);
    expect(res.status).toBe(200);
    const keys = resultOf(res);
    expect(keys.map((k: { id: string }) => k.id)).toEqual([appKey.id, ws.keyId]);
    expect(Object.keys(res.body.result.data.json[0]).sort()).toEqual(
      ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'memberId', 'name', 'prefix', 'previousSecret', 'revokedAt', 'scopes'],
    );
    expect(keys[1]).toMatchObject({ memberId: ws.member.id, prefix: ws.key.slice(0, 12), scopes: ALL_SCOPES, revokedAt: null });
    const text = JSON.stringify(res.body);
    for (const secret of [ws.key, appKey.key, hashApiKeySecret(ws.key)]) expect(text).not.toContain(secret);
    expect(resultOf(await rpcGet(appCtx.app, 'apiKeys.list', {}, appKey.key))).toHaveLength(2);
  });

  it('answers 400 for an input it does not take, and 403 naming apiKeys.read to a key without it', async () => {
    const ws = await createWorkspace(appCtx.db);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['apiKeys.read']);
    const bad = await rpcGet(appCtx.app, 'apiKeys.list', { orgId: 'org_x' }, appKey.key);
    expectRpcFailure(bad, 'BAD_REQUEST', 'apiKeys.list');
    expect(issuePaths(bad)).toEqual([['orgId']]);
    const forbidden = await rpcGet(appCtx.app, 'apiKeys.list', undefined, ws.key);
    expect(expectRpcFailure(forbidden, 'FORBIDDEN', 'apiKeys.list').message).toBe('missing scope: apiKeys.read');
  });
});

describe('POST apiKeys.create (handler, as the app uses it)', () => {
  it('issues a working key whose secret is answered once and stored only as a hash', async () => {
    const ws = await createWorkspace(appCtx.db);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['apiKeys.create']);
    const expiresAt = new Date(Date.now() + 86_400_000);
    const res = await rpcPost(appCtx.app, 'apiKeys.create', { name: 'Zapier', scopes: ['leads.read', 'leads.read', 'tasks.read'], expiresAt }, appKey.key);
    expect(res.status).toBe(200);
    const issued = resultOf(res);
    expect(issued).toMatchObject({ name: 'Zapier', scopes: ['leads.read', 'tasks.read'], expiresAt, revokedAt: null, memberId: null });
    expect(issued.key).toMatch(/^wsk_[0-9A-Za-z]{40}$/);
    expect(issued.prefix).toBe(issued.key.slice(0, 12));
    const row = await appCtx.db('api_keys').where({ org_id: ws.org.id, id: issued.id }).first();
    expect(row.secret_hash).toBe(hashApiKeySecret(issued.key));
    expect(JSON.stringify(row)).not.toContain(issued.key);
    expect((await rpcGet(ctx.app, 'tasks.getAll', {}, issued.key)).status).toBe(200);
    expect((await rpcGet(ctx.app, 'orgMembers.getAll', {}, issued.key)).status).toBe(403);
  });

  it.each([
    ['no name', { scopes: ['leads.read'] }, [['name']]],
    ['no scopes', { name: 'k', scopes: [] }, [['scopes']]],
    ['an expiry in the past', { name: 'k', scopes: ['leads.read'], expiresAt: new Date(Date.now() - 1000) }, [['expiresAt']]],
    ['an unknown key', { name: 'k', scopes: ['leads.read'], orgId: 'org_x' }, [['orgId']]],
  ])('answers 400 for %s, issuing nothing', async (_label, input, paths) => {
    const ws = await createWorkspace(appCtx.db);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['apiKeys.create']);
    const res = await rpcPost(appCtx.app, 'apiKeys.create', input, appKey.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'apiKeys.create');
    expect(issuePaths(res)).toEqual(paths);
    expect(await keyRows(appCtx.db, ws.org.id)).toHaveLength(2);
  });

  it('answers 400 naming scopes no procedure exposes (app-only ones included), issuing nothing', async () => {
    const ws = await createWorkspace(appCtx.db);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['apiKeys.create']);
    const res = await rpcPost(appCtx.app, 'apiKeys.create', { name: 'k', scopes: ['leads.read', 'apiKeys.create', 'leads.write'] }, appKey.key);
    expect(expectRpcFailure(res, 'BAD_REQUEST', 'apiKeys.create').message).toBe('Unknown scope(s): apiKeys.create, leads.write');
    expect(await keyRows(appCtx.db, ws.org.id)).toHaveLength(2);
  });

  it('answers 403 naming apiKeys.create to a key without it', async () => {
    const ws = await createWorkspace(appCtx.db);
    const res = await rpcPost(appCtx.app, 'apiKeys.create', { name: 'k', scopes: ['leads.read'] }, ws.key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'apiKeys.create').message).toBe('missing scope: apiKeys.create');
    expect(await keyRows(appCtx.db, ws.org.id)).toHaveLength(1);
  });
});

describe('POST apiKeys.revoke (handler, as the app uses it)', () => {
  it('revokes a key of the workspace, keeps the first revocation time on a second call, and the key stops working', async () => {
    const ws = await createWorkspace(appCtx.db);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['apiKeys.update']);
    const victim = await createKey(appCtx.db, ws.org.id, { scopes: ['leads.read'] });
    const res = await rpcPost(appCtx.app, 'apiKeys.revoke', { id: victim.id }, appKey.key);
    expect(res.status).toBe(200);
    const revoked = resultOf(res);
    expect(revoked).toMatchObject({ id: victim.id, revokedAt: expect.any(Date) });
    expect(res.body.result.data.json).not.toHaveProperty('key');
    const row = await appCtx.db('api_keys').where({ org_id: ws.org.id, id: victim.id }).first();
    expect(row.revoked_at).toEqual(revoked.revokedAt);
    expect(resultOf(await rpcPost(appCtx.app, 'apiKeys.revoke', { id: victim.id }, appKey.key)).revokedAt).toEqual(revoked.revokedAt);
    // Never used before, so no instance has it cached: refused at once.
    expect((await rpcGet(ctx.app, 'leads.getAll', {}, victim.key)).status).toBe(401);
    expect((await appCtx.db('api_keys').where({ org_id: ws.org.id, id: ws.keyId }).first()).revoked_at).toBeNull();
  });

  it("answers 404 for another workspace's key, which keeps working", async () => {
    const ws = await createWorkspace(appCtx.db);
    const theirs = await createWorkspace(appCtx.db);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['apiKeys.update']);
    const res = await rpcPost(appCtx.app, 'apiKeys.revoke', { id: theirs.keyId }, appKey.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', 'apiKeys.revoke').message).toBe(`No API key ${JSON.stringify(theirs.keyId)} in this workspace`);
    expect((await appCtx.db('api_keys').where({ org_id: theirs.org.id, id: theirs.keyId }).first()).revoked_at).toBeNull();
    expect((await rpcGet(ctx.app, 'leads.getAll', {}, theirs.key)).status).toBe(200);
  });

  it('answers 400 without an id and 403 naming apiKeys.update to a key without it', async () => {
    const ws = await createWorkspace(appCtx.db);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['apiKeys.update']);
    const bad = await rpcPost(appCtx.app, 'apiKeys.revoke', {}, appKey.key);
    expectRpcFailure(bad, 'BAD_REQUEST', 'apiKeys.revoke');
    expect(issuePaths(bad)).toEqual([['id']]);
    const forbidden = await rpcPost(appCtx.app, 'apiKeys.revoke', { id: appKey.id }, ws.key);
    expect(expectRpcFailure(forbidden, 'FORBIDDEN', 'apiKeys.revoke').message).toBe('missing scope: apiKeys.update');
    expect((await keyRows(appCtx.db, ws.org.id)).map((k) => k.revoked_at)).toEqual([null, null]);
  });
});

describe('POST organisation.update (handler, as the app uses it)', () => {
  async function storedOrg(id: string) {
    return appCtx.db('organisations').where({ id }).first();
  }

  it("changes the caller's workspace name and phone region (upper-cased) and nothing of another workspace", async () => {
    const ws = await createWorkspace(appCtx.db);
    const other = await createOrg(appCtx.db);
    const otherBefore = await storedOrg(other.id);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['organisation.update']);
    const res = await rpcPost(appCtx.app, 'organisation.update', { name: '  Renamed Ltd ', phoneRegion: 'us' }, appKey.key);
    expect(res.status).toBe(200);
    const org = resultOf(res);
    expect(org).toMatchObject({ id: ws.org.id, name: 'Renamed Ltd', phoneRegion: 'US', tier: 'BUSINESS', features: ws.org.features });
    expect(org.updatedAt.getTime()).toBeGreaterThan(ws.org.updatedAt.getTime());
    expect(await storedOrg(ws.org.id)).toMatchObject({ name: 'Renamed Ltd', phone_region: 'US', tier: 'BUSINESS' });
    expect(await storedOrg(other.id)).toEqual(otherBefore);
    const again = await rpcPost(appCtx.app, 'organisation.update', { name: 'Only the name' }, appKey.key);
    expect(resultOf(again)).toMatchObject({ name: 'Only the name', phoneRegion: 'US' });
  });

  it('answers 409 when expectedUpdatedAt is stale, changing nothing; writes when it is current', async () => {
    const ws = await createWorkspace(appCtx.db);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['organisation.update']);
    const before = await storedOrg(ws.org.id);
    const stale = new Date(ws.org.updatedAt.getTime() - 1);
    const res = await rpcPost(appCtx.app, 'organisation.update', { name: 'Lost', expectedUpdatedAt: stale }, appKey.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'organisation.update').message).toContain(stale.toISOString());
    expect(await storedOrg(ws.org.id)).toEqual(before);
    const ok = await rpcPost(appCtx.app, 'organisation.update', { name: 'Kept', expectedUpdatedAt: ws.org.updatedAt }, appKey.key);
    expect(resultOf(ok).name).toBe('Kept');
  });

  it.each([
    ['an unknown region', { phoneRegion: 'ZZ' }, [['phoneRegion']]],
    ['a three-letter region', { phoneRegion: 'GBR' }, [['phoneRegion']]],
    ['a blank name', { name: ' ' }, [['name']]],
    ['the tier (operators only)', { tier: 'FREE' }, [['tier']]],
  ])('answers 400 for %s, changing nothing', async (_label, input, paths) => {
    const ws = await createWorkspace(appCtx.db);
    const appKey = await insertKey(appCtx.db, ws.org.id, ['organisation.update']);
    const before = await storedOrg(ws.org.id);
    const res = await rpcPost(appCtx.app, 'organisation.update', input, appKey.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'organisation.update');
    expect(issuePaths(res)).toEqual(paths);
    expect(await storedOrg(ws.org.id)).toEqual(before);
  });

  it('answers 403 naming organisation.update to a key without it', async () => {
    const ws = await createWorkspace(appCtx.db);
    const before = await storedOrg(ws.org.id);
    const res = await rpcPost(appCtx.app, 'organisation.update', { name: 'x' }, ws.key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'organisation.update').message).toBe('missing scope: organisation.update');
    expect(await storedOrg(ws.org.id)).toEqual(before);
  });
});
