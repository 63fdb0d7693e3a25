import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../helpers/test-app';
import { createKey, createOrg } from '../helpers/factories';
import { pollUntil } from '../helpers/cli-harness';
import * as apiKeysQueries from '../../src/db/api-keys';

// The default cache of verified keys: trusted for 1 second.
const ctx = createTestContext({ keyCacheTtlMs: 1000 });
const extraContexts: TestContext[] = [];
afterAll(async () => {
  await Promise.all(extraContexts.map((c) => c.close()));
  await ctx.close();
});

/** Another instance of the service on the same database (its own key cache and last-used memory). */
function anotherInstance(keyCacheTtlMs = 1000): TestContext {
  const instance = createTestContext({ keyCacheTtlMs });
  extraContexts.push(instance);
  return instance;
}

function listLeads(app: Express, key: string) {
  return request(app).get('/api/v1/leads').set('Authorization', `Bearer ${key}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function lastUsedAt(orgId: string, keyId: string): Promise<Date | null> {
  const row = await ctx.db('api_keys').where({ org_id: orgId, id: keyId }).first();
  return row.last_used_at;
}

describe('API key last use', () => {
  it('is written on first use and not rewritten by a second use within the minute', async () => {
    const org = await createOrg(ctx.db);
    const { id, key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
    expect(await lastUsedAt(org.id, id)).toBeNull();
    const before = Date.now();

    expect((await listLeads(ctx.app, key)).status).toBe(200);
    const first = await pollUntil(() => lastUsedAt(org.id, id), (value) => value !== null);

    expect(first).toBeInstanceOf(Date);
    expect(first!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(first!.getTime()).toBeLessThanOrEqual(Date.now() + 1000);

    expect((await listLeads(ctx.app, key)).status).toBe(200);
    await sleep(300);
    expect((await lastUsedAt(org.id, id))!.getTime()).toBe(first!.getTime());
  });

  it('is not rewritten within the minute by another instance either (the database guards it)', async () => {
    const org = await createOrg(ctx.db);
    const { id, key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
    expect((await listLeads(ctx.app, key)).status).toBe(200);
    const first = await pollUntil(() => lastUsedAt(org.id, id), (value) => value !== null);
    expect(first).not.toBeNull();

    expect((await listLeads(anotherInstance().app, key)).status).toBe(200);
    await sleep(300);

    expect((await lastUsedAt(org.id, id))!.getTime()).toBe(first!.getTime());
  });

  it('is rewritten once the last write is over a minute old', async () => {
    const org = await createOrg(ctx.db);
    const { id, key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
    const old = new Date(Date.now() - 2 * 60_000);
    await ctx.db('api_keys').where({ org_id: org.id, id }).update({ last_used_at: old });

    expect((await listLeads(anotherInstance().app, key)).status).toBe(200);
    const written = await pollUntil(() => lastUsedAt(org.id, id), (value) => value !== null && value.getTime() !== old.getTime());

    expect(written!.getTime()).toBeGreaterThan(Date.now() - 10_000);
  });
});

describe('API key revocation with the default 1-second cache', () => {
  it('answers 401 within 1.2 seconds of the revocation for a key that was just verified and cached', async () => {
    const org = await createOrg(ctx.db);
    const { id, key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
    expect((await listLeads(ctx.app, key)).status).toBe(200);

    await apiKeysQueries.revoke(ctx.db, id);
    const revokedAt = Date.now();
    let res = await listLeads(ctx.app, key);
    while (res.status === 200 && Date.now() - revokedAt < 1500) {
      await sleep(50);
      res = await listLeads(ctx.app, key);
    }
    const elapsed = Date.now() - revokedAt;

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'API key has been revoked' } });
    expect(elapsed).toBeLessThanOrEqual(1200);
  });

  it('answers 401 on every instance within 1.2 seconds, each with its own cache', async () => {
    const org = await createOrg(ctx.db);
    const { id, key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
    const apps = [ctx.app, anotherInstance().app];
    for (const app of apps) expect((await listLeads(app, key)).status).toBe(200);

    await apiKeysQueries.revoke(ctx.db, id);
    const revokedAt = Date.now();
    await sleep(1100);

    for (const app of apps) expect((await listLeads(app, key)).status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(1300);
  });
});

describe('API key expiry', () => {
  it('bites at once even while the verified key is cached (default 1-second cache)', async () => {
    const org = await createOrg(ctx.db);
    const expiresAt = new Date(Date.now() + 1500);
    const { key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'], expiresAt });

    // Verify (and cache) the key less than a second before it expires.
    await sleep(Math.max(0, expiresAt.getTime() - Date.now() - 800));
    expect((await listLeads(ctx.app, key)).status).toBe(200);
    await sleep(Math.max(0, expiresAt.getTime() - Date.now() + 50));
    const res = await listLeads(ctx.app, key);

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'API key has expired' } });
  });

  it('bites at once on an instance that caches keys for a minute', async () => {
    const longCache = anotherInstance(60_000);
    const org = await createOrg(ctx.db);
    const expiresAt = new Date(Date.now() + 1000);
    const { key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'], expiresAt });
    expect((await listLeads(longCache.app, key)).status).toBe(200);

    await sleep(Math.max(0, expiresAt.getTime() - Date.now() + 50));
    const res = await listLeads(longCache.app, key);

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'API key has expired' } });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="workspace-api"');
  });
});
