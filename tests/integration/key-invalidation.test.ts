import request from 'supertest';
import { createTestDb } from '../helpers/test-app';
import { testJwtKeys } from '../helpers/test-secrets';
import { signPlaygroundToken } from '../../src/auth/playground-token';
import { signMemberSession } from '../../src/auth/member-session';
import * as apiKeysQueries from '../../src/db/api-keys';
import * as orgsQueries from '../../src/db/orgs';
import { cli } from '../helpers/cli-harness';
import { sleep, until } from '../helpers/poll';
import { closeInstances, instance, listLeads, refusedWithin200ms, terminateListener, workspaceWithKey } from '../helpers/key-cache-instances';

afterAll(closeInstances);

describe('API key cache with a live invalidation listener', () => {
  type Instance = ReturnType<typeof instance>;
  let a: Instance;
  let b: Instance;
  beforeAll(async () => {
    a = instance({ keyCacheTtlMs: 100 });
    b = instance({ keyCacheTtlMs: 1000 });
    expect(await until(() => a.listener.isLive() && b.listener.isLive(), 5000, 10)).toBe(true);
  });

  it('refuses a key cached in two instances on the next request after the developer page revokes it on one of them', async () => {
    const { org, member, victim } = await workspaceWithKey(a.db);
    expect([(await listLeads(a.app, victim.key)).status, (await listLeads(b.app, victim.key)).status]).toEqual([200, 200]);

    const session = signMemberSession(testJwtKeys.session, { memberId: member.id, orgId: org.id }).token;
    const revoked = await request(a.app).post(`/developer/api/keys/${victim.id}/revoke`).set('Authorization', `Bearer ${session}`);
    expect(revoked.status).toBe(200);

    expect(await refusedWithin200ms(b.app, victim.key)).toEqual({ status: 401, message: 'API key has been revoked' });
    expect(await refusedWithin200ms(a.app, victim.key)).toEqual({ status: 401, message: 'API key has been revoked' });
  });

  it('refuses a cached key on the next request after the CLI revocation by id, written by another process', async () => {
    const { victim } = await workspaceWithKey(a.db);
    expect((await listLeads(b.app, victim.key)).status).toBe(200);
    const cliDb = createTestDb(1);
    try {
      await apiKeysQueries.revoke(cliDb, victim.id);
    } finally {
      await cliDb.destroy();
    }
    expect(await refusedWithin200ms(b.app, victim.key)).toEqual({ status: 401, message: 'API key has been revoked' });
  });

  it('refuses a cached key on the first request after its expiry passes, with no notification', async () => {
    const { victim } = await workspaceWithKey(a.db, { expiresAt: new Date(Date.now() + 1500) });
    expect((await listLeads(b.app, victim.key)).status).toBe(200);
    await sleep(1600);
    const res = await listLeads(b.app, victim.key);
    expect([res.status, res.body.error.message]).toEqual([401, 'API key has expired']);
  });

  it('keeps a key changed by hand in SQL until `cache flush`, then refuses it at once', async () => {
    const { org, victim } = await workspaceWithKey(a.db, { expiresAt: new Date(Date.now() + 3_600_000) });
    expect((await listLeads(b.app, victim.key)).status).toBe(200);
    await a.db.raw("update api_keys set expires_at = now() - interval '1 second' where org_id = ? and id = ?", [org.id, victim.id]);
    await sleep(300);
    expect((await listLeads(b.app, victim.key)).status).toBe(200);
    expect((await cli('cache', 'flush')).code).toBe(0);
    expect(await refusedWithin200ms(b.app, victim.key)).toEqual({ status: 401, message: 'API key has expired' });
  });

  it('refuses a cached playground token with 403 at once when the workspace loses DEVELOPER_API', async () => {
    const { org, member } = await workspaceWithKey(a.db);
    const token = signPlaygroundToken(testJwtKeys.token, { memberId: member.id, orgId: org.id, scopes: ['leads.read'] }).token;
    expect((await listLeads(b.app, token)).status).toBe(200);
    await orgsQueries.setAccess(a.db, org.id, { features: [] });
    const res = await refusedWithin200ms(b.app, token);
    expect(res.status).toBe(403);
    expect(res.message).toMatch(/lacks the DEVELOPER_API feature/);
  });
});

describe('API key cache when the invalidation listener is lost', () => {
  it('falls back to the short TTL while the LISTEN connection is down', async () => {
    const c = instance({ keyCacheTtlMs: 300, retryDelayMs: { min: 60_000, max: 60_000 } });
    expect(await until(() => c.listener.isLive(), 5000, 10)).toBe(true);
    const { victim } = await workspaceWithKey(c.db);
    expect((await listLeads(c.app, victim.key)).status).toBe(200);

    await terminateListener(c.db, c.applicationName);
    expect(await until(() => !c.listener.isLive(), 2000, 10)).toBe(true);
    await apiKeysQueries.revoke(c.db, victim.id); // its notification reaches nobody here

    await sleep(350);
    const res = await listLeads(c.app, victim.key);
    expect([res.status, res.body.error.message]).toEqual([401, 'API key has been revoked']);
    expect(c.logLines.filter((line) => /invalidation lost/.test(line.msg))).toHaveLength(1);
  });

  it('drops every cached key when the listener reconnects, since notifications may have been missed', async () => {
    const c = instance({ keyCacheTtlMs: 1000, retryDelayMs: { min: 50, max: 50 } });
    expect(await until(() => c.listener.isLive(), 5000, 10)).toBe(true);
    const { victim } = await workspaceWithKey(c.db);
    expect((await listLeads(c.app, victim.key)).status).toBe(200);

    await terminateListener(c.db, c.applicationName);
    expect(await until(() => !c.listener.isLive(), 2000, 10)).toBe(true);
    await apiKeysQueries.revoke(c.db, victim.id);
    expect(await until(() => c.listener.isLive(), 5000, 10)).toBe(true);

    const res = await listLeads(c.app, victim.key);
    expect([res.status, res.body.error.message]).toEqual([401, 'API key has been revoked']);
  });
});
