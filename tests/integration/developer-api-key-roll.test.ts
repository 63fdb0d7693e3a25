import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey, createMember, createOrg } from '../helpers/factories';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { hashApiKeySecret } from '../../src/domain/api-key-secret';
import * as apiKeysQueries from '../../src/db/api-keys';
import { TABLES } from '../../src/db/tables';

// The developer page's roll route, POST /developer/api/keys/:id/roll (the page's Roll button);
// the procedure behind it is tested in api-keys-roll.test.ts. Cache off: each request reads the key.
const ctx = createTestContext({ keyCacheTtlMs: 0 });
afterAll(() => ctx.close());

async function workspace(options: { permissions?: string[] } = {}) {
  const org = await createOrg(ctx.db, { features: ['DEVELOPER_API'] });
  const member = await createMember(ctx.db, org.id, options.permissions ?? ['DEVELOPER']);
  const session = signMemberSession(testJwtKeys.session, { memberId: member.id, orgId: org.id }).token;
  return { org, member, auth: `Bearer ${session}` };
}

function rollRoute(id: string, auth: string, body: unknown) {
  return request(ctx.app).post(`/developer/api/keys/${id}/roll`).set('Authorization', auth).set('Content-Type', 'application/json').send(JSON.stringify(body));
}

const keyRow = (orgId: string, id: string) => ctx.db(TABLES.apiKeys).where({ org_id: orgId, id }).first();
const listLeads = (key: string) => request(ctx.app).get('/api/v1/leads?pageSize=1').set('Authorization', `Bearer ${key}`);

describe('POST /developer/api/keys/:id/roll', () => {
  it('answers the key with its new secret once and the end of the previous one; the listing shows the pending previous secret', async () => {
    const ws = await workspace();
    const old = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });

    const res = await rollRoute(old.id, ws.auth, { expirePreviousInSeconds: 600 });

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { key } = res.body;
    expect(Object.keys(key).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'previousSecret', 'previousSecretExpiresAt', 'revokedAt', 'scopes', 'secret']);
    expect(key).toMatchObject({ id: old.id, scopes: ['leads.read'], prefix: key.secret.slice(0, 12), previousSecret: { prefix: old.key.slice(0, 12), expiresAt: key.previousSecretExpiresAt } });
    expect(Date.parse(key.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(590_000);
    expect((await keyRow(ws.org.id, old.id)).secret_hash).toBe(hashApiKeySecret(key.secret));
    expect([(await listLeads(old.key)).status, (await listLeads(key.secret)).status]).toEqual([200, 200]);

    const listed = await request(ctx.app).get('/developer/api/keys').set('Authorization', ws.auth);
    expect(listed.body.keys[0].previousSecret).toEqual({ prefix: old.key.slice(0, 12), expiresAt: key.previousSecretExpiresAt });
    expect(listed.text).not.toContain(key.secret);
  });

  it('keeps the previous secret a day when the body is empty, and refuses it at once with 0', async () => {
    const ws = await workspace();
    const old = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });

    const byDefault = await rollRoute(old.id, ws.auth, {});
    expect(Date.parse(byDefault.body.key.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    const now = await rollRoute(old.id, ws.auth, { expirePreviousInSeconds: 0 });

    expect(now.status).toBe(200);
    expect([now.body.key.previousSecretExpiresAt, now.body.key.previousSecret]).toEqual([null, null]);
    const refused = await listLeads(byDefault.body.key.secret);
    expect([refused.status, refused.body.error.message]).toEqual([401, 'API key secret has been rolled']);
    expect((await listLeads(old.key)).status).toBe(401);
    expect((await listLeads(now.body.key.secret)).status).toBe(200);
  });

  it.each([
    ['-1', { expirePreviousInSeconds: -1 }],
    ['604801', { expirePreviousInSeconds: 604_801 }],
    ['1.5', { expirePreviousInSeconds: 1.5 }],
    ['a string', { expirePreviousInSeconds: '60' }],
    ['an unknown field', { expirePreviousInSeconds: 60, scopes: ['leads.delete'] }],
  ])('answers 400 for an overlap of %s, and changes nothing', async (_label, body) => {
    const ws = await workspace();
    const old = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    const before = await keyRow(ws.org.id, old.id);

    const res = await rollRoute(old.id, ws.auth, body);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(await keyRow(ws.org.id, old.id)).toEqual(before);
  });

  it('answers 409 for a revoked key and 404 for another workspace key, changing neither', async () => {
    const ws = await workspace();
    const other = await workspace();
    const revoked = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    await apiKeysQueries.revokeInOrg(ctx.db, ws.org.id, revoked.id);
    const theirs = await createKey(ctx.db, other.org.id, { scopes: ['leads.read'] });
    const before = [await keyRow(ws.org.id, revoked.id), await keyRow(other.org.id, theirs.id)];

    const conflict = await rollRoute(revoked.id, ws.auth, {});
    const notFound = await rollRoute(theirs.id, ws.auth, {});

    expect([conflict.status, conflict.body.error.code]).toEqual([409, 'CONFLICT']);
    expect([notFound.status, notFound.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect([await keyRow(ws.org.id, revoked.id), await keyRow(other.org.id, theirs.id)]).toEqual(before);
  });

  it('answers 403 to a member without DEVELOPER, and 415 to a body that is not JSON, changing nothing', async () => {
    const viewer = await workspace({ permissions: [] });
    const key = await createKey(ctx.db, viewer.org.id, { scopes: ['leads.read'] });
    const before = await keyRow(viewer.org.id, key.id);

    expect((await rollRoute(key.id, viewer.auth, {})).status).toBe(403);
    const dev = await workspace();
    const devKey = await createKey(ctx.db, dev.org.id, { scopes: ['leads.read'] });
    const devBefore = await keyRow(dev.org.id, devKey.id);
    const text = await request(ctx.app).post(`/developer/api/keys/${devKey.id}/roll`).set('Authorization', dev.auth).set('Content-Type', 'text/plain').send('0');
    expect(text.status).toBe(415);
    expect(await keyRow(viewer.org.id, key.id)).toEqual(before);
    expect(await keyRow(dev.org.id, devKey.id)).toEqual(devBefore);
  });
});
