import { unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure } from '../helpers/leads-procedures-helpers';
import { sleep, until } from '../helpers/poll';
import { closeInstances, instance, listLeads, refusedWithin200ms, workspaceWithKey } from '../helpers/key-cache-instances';
import { createRegistry } from '../../src/rpc/registry';
import { procedures } from '../../src/procedures';
import * as apiKeysQueries from '../../src/db/api-keys';
import { generateApiKeySecret, hashApiKeySecret } from '../../src/domain/api-key-secret';
import { newId } from '../../src/domain/ids';
import type { Express } from 'express';
import type { Db } from '../../src/db/knex';

// apiKeys.roll is app only (exposed: false): instance `a` exposes every procedure, as the app's
// calls reach the handler; `b` is the service as deployed. Each has its own pool, LISTEN
// connection and key cache (the revocation test's method, tests/helpers/key-cache-instances.ts).
afterAll(closeInstances);

type Instance = ReturnType<typeof instance>;
let a: Instance;
let b: Instance;
beforeAll(async () => {
  a = instance({ registry: createRegistry(procedures.map((p) => ({ ...p, exposed: true }))) });
  b = instance();
  expect(await until(() => a.listener.isLive() && b.listener.isLive(), 5000, 10)).toBe(true);
});

/** A workspace with a leads.read key (the one rolled) and the app's key that may roll it. */
async function workspace(options: { expiresAt?: Date } = {}) {
  const ws = await workspaceWithKey(a.db, options);
  const secret = generateApiKeySecret();
  await apiKeysQueries.insert(a.db, ws.org.id, {
    id: newId('key'), memberId: null, name: unique('app key'), prefix: secret.prefix, secretHash: secret.hash, scopes: ['apiKeys.create', 'apiKeys.read'], expiresAt: null,
  });
  return { ...ws, appKey: secret.secret };
}

function roll(appKey: string, input: unknown) {
  return rpcPost(a.app, 'apiKeys.roll', input, appKey);
}

/** What a roll writes: the key row (without last_used_at, written by any use) and the key's hashes in api_key_secrets. */
async function stored(db: Db, orgId: string, keyId: string) {
  const key = await db('api_keys')
    .where({ org_id: orgId, id: keyId })
    .first('id', 'name', 'scopes', 'prefix', 'secret_hash', 'expires_at', 'revoked_at', 'previous_secret_hash', 'previous_prefix', 'previous_secret_expires_at');
  const hashes = (await db('api_key_secrets').where({ key_id: keyId }).select('secret_hash', 'org_id')).map((r) => `${r.org_id}:${r.secret_hash}`).sort();
  return { key, hashes };
}

async function statusesOf(bearer: string): Promise<number[]> {
  return [(await listLeads(a.app, bearer)).status, (await listLeads(b.app, bearer)).status];
}

/** Polls until `app` refuses `bearer`, for at most `ms`; answers the last status, message and when it was seen. */
async function refusedWithin(app: Express, bearer: string, ms: number) {
  const deadline = Date.now() + ms;
  let last = await listLeads(app, bearer);
  while (last.status === 200 && Date.now() < deadline) {
    await sleep(10);
    last = await listLeads(app, bearer);
  }
  return { status: last.status, message: last.body?.error?.message as string | undefined, at: Date.now() };
}

describe('POST apiKeys.roll', () => {
  it('answers the key with a new secret (same id, name, scopes, expiry) and stores only its hash; the previous secret works for a day by default', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000);
    const { org, victim, appKey } = await workspace({ expiresAt });
    const before = await stored(a.db, org.id, victim.id);

    const res = await roll(appKey, { id: victim.id });

    expect(res.status).toBe(200);
    const rolled = resultOf(res);
    expect(Object.keys(rolled).sort()).toEqual(
      ['createdAt', 'expiresAt', 'id', 'key', 'lastUsedAt', 'memberId', 'name', 'prefix', 'previousSecret', 'previousSecretExpiresAt', 'revokedAt', 'scopes'],
    );
    expect(rolled).toMatchObject({ id: victim.id, name: before.key.name, scopes: ['leads.read'], expiresAt: before.key.expires_at, revokedAt: null });
    expect(rolled.key).toMatch(/^wsk_[0-9A-Za-z]{40}$/);
    expect(rolled.key).not.toBe(victim.key);
    expect(rolled.prefix).toBe(rolled.key.slice(0, 12));
    expect(rolled.previousSecret).toEqual({ prefix: victim.key.slice(0, 12), expiresAt: rolled.previousSecretExpiresAt });
    const overlap = rolled.previousSecretExpiresAt.getTime() - Date.now();
    expect(overlap).toBeGreaterThan(86_400_000 - 60_000);
    expect(overlap).toBeLessThanOrEqual(86_400_000);

    const after = await stored(a.db, org.id, victim.id);
    expect(after.key).toEqual({
      ...before.key,
      prefix: rolled.key.slice(0, 12),
      secret_hash: hashApiKeySecret(rolled.key),
      previous_secret_hash: hashApiKeySecret(victim.key),
      previous_prefix: victim.key.slice(0, 12),
      previous_secret_expires_at: rolled.previousSecretExpiresAt,
    });
    expect(after.hashes).toEqual([`${org.id}:${hashApiKeySecret(victim.key)}`, `${org.id}:${hashApiKeySecret(rolled.key)}`].sort());
    expect(JSON.stringify(after)).not.toContain(rolled.key);
    const text = JSON.stringify(res.body);
    for (const secret of [victim.key, hashApiKeySecret(victim.key), hashApiKeySecret(rolled.key)]) expect(text).not.toContain(secret);
  });

  it('keeps both secrets working on two instances during the overlap, then refuses the old one on both within 1 s of its end', async () => {
    const { org, victim, appKey } = await workspace();
    expect(await statusesOf(victim.key)).toEqual([200, 200]); // cached on both

    const rolled = resultOf(await roll(appKey, { id: victim.id, expirePreviousInSeconds: 2 }));

    expect(await statusesOf(victim.key)).toEqual([200, 200]);
    expect(await statusesOf(rolled.key)).toEqual([200, 200]);
    const listed = resultOf(await rpcGet(a.app, 'apiKeys.list', undefined, appKey)).find((k: { id: string }) => k.id === victim.id);
    expect(listed.previousSecret).toEqual({ prefix: victim.key.slice(0, 12), expiresAt: rolled.previousSecretExpiresAt });

    const end: number = rolled.previousSecretExpiresAt.getTime();
    await sleep(Math.max(0, end - Date.now() - 300));
    expect(await statusesOf(victim.key)).toEqual([200, 200]); // still in the overlap, and cached again
    await sleep(Math.max(0, end - Date.now()));
    for (const app of [b.app, a.app]) {
      const refused = await refusedWithin(app, victim.key, 1000);
      expect({ status: refused.status, message: refused.message }).toEqual({ status: 401, message: 'API key secret has been rolled' });
      expect(refused.at - end).toBeLessThanOrEqual(1000);
    }
    expect(await statusesOf(rolled.key)).toEqual([200, 200]);
    const relisted = resultOf(await rpcGet(a.app, 'apiKeys.list', undefined, appKey)).find((k: { id: string }) => k.id === victim.id);
    expect(relisted.previousSecret).toBeNull();
    expect((await stored(a.db, org.id, victim.id)).key.revoked_at).toBeNull();
  });

  it('with expirePreviousInSeconds 0, refuses the old secret on both instances at once, as a revocation', async () => {
    const { org, victim, appKey } = await workspace();
    expect(await statusesOf(victim.key)).toEqual([200, 200]);

    const res = await roll(appKey, { id: victim.id, expirePreviousInSeconds: 0 });

    expect(res.status).toBe(200);
    const rolled = resultOf(res);
    expect([rolled.previousSecretExpiresAt, rolled.previousSecret]).toEqual([null, null]);
    expect(await refusedWithin200ms(b.app, victim.key)).toEqual({ status: 401, message: 'API key secret has been rolled' });
    expect(await refusedWithin200ms(a.app, victim.key)).toEqual({ status: 401, message: 'API key secret has been rolled' });
    expect(await statusesOf(rolled.key)).toEqual([200, 200]);
    expect((await stored(a.db, org.id, victim.id)).key).toMatchObject({ previous_secret_hash: hashApiKeySecret(victim.key), previous_secret_expires_at: null });
  });

  it('rolled again during an overlap, ends the older overlap at once: its secret is refused on both instances and leaves api_key_secrets', async () => {
    const { org, victim, appKey } = await workspace();
    const first = resultOf(await roll(appKey, { id: victim.id, expirePreviousInSeconds: 3600 }));
    expect(await statusesOf(victim.key)).toEqual([200, 200]);
    expect(await statusesOf(first.key)).toEqual([200, 200]);

    const second = resultOf(await roll(appKey, { id: victim.id, expirePreviousInSeconds: 3600 }));

    expect((await refusedWithin200ms(b.app, victim.key)).status).toBe(401);
    expect((await refusedWithin200ms(a.app, victim.key)).status).toBe(401);
    expect(await statusesOf(first.key)).toEqual([200, 200]);
    expect(await statusesOf(second.key)).toEqual([200, 200]);
    expect(second.previousSecret).toEqual({ prefix: first.key.slice(0, 12), expiresAt: second.previousSecretExpiresAt });
    expect((await stored(a.db, org.id, victim.id)).hashes).toEqual([`${org.id}:${hashApiKeySecret(first.key)}`, `${org.id}:${hashApiKeySecret(second.key)}`].sort());
  });

  it('rolled twice at once, leaves one current and one previous secret, and the original refused', async () => {
    const { org, victim, appKey } = await workspace();

    const answers = (await Promise.all([1, 2].map(() => roll(appKey, { id: victim.id, expirePreviousInSeconds: 3600 })))).map((res) => {
      expect(res.status).toBe(200);
      return resultOf(res);
    });

    const after = await stored(a.db, org.id, victim.id);
    const [current, previous] = after.key.secret_hash === hashApiKeySecret(answers[0].key) ? [answers[0], answers[1]] : [answers[1], answers[0]];
    expect(after.key).toMatchObject({ secret_hash: hashApiKeySecret(current.key), previous_secret_hash: hashApiKeySecret(previous.key) });
    expect(after.hashes).toEqual([`${org.id}:${hashApiKeySecret(current.key)}`, `${org.id}:${hashApiKeySecret(previous.key)}`].sort());
    expect((await refusedWithin200ms(b.app, victim.key)).status).toBe(401);
    expect(await statusesOf(current.key)).toEqual([200, 200]);
    expect(await statusesOf(previous.key)).toEqual([200, 200]);
  });
});

describe('POST apiKeys.roll refuses bad input with a 4xx and changes nothing', () => {
  it.each([
    ['-1', -1],
    ['604801 (over 7 days)', 604_801],
    ['1.5 (not whole)', 1.5],
    ['"60" (a string)', '60'],
    ['null', null],
  ])('answers 400 for expirePreviousInSeconds %s', async (_label, value) => {
    const { org, victim, appKey } = await workspace();
    const before = await stored(a.db, org.id, victim.id);

    const res = await roll(appKey, { id: victim.id, expirePreviousInSeconds: value });

    const { issues } = expectRpcFailure(res, 'BAD_REQUEST', 'apiKeys.roll');
    expect(issues?.map((i) => i.path)).toEqual([['expirePreviousInSeconds']]);
    expect(await stored(a.db, org.id, victim.id)).toEqual(before);
    expect(await statusesOf(victim.key)).toEqual([200, 200]);
  });

  it('takes the bounds themselves, 0 and 604800', async () => {
    const { victim, appKey } = await workspace();
    expect((await roll(appKey, { id: victim.id, expirePreviousInSeconds: 604_800 })).status).toBe(200);
    expect((await roll(appKey, { id: victim.id, expirePreviousInSeconds: 0 })).status).toBe(200);
  });

  it('answers 409 CONFLICT for a revoked key, and rolls nothing', async () => {
    const { org, victim, appKey } = await workspace();
    await apiKeysQueries.revokeInOrg(a.db, org.id, victim.id);
    const before = await stored(a.db, org.id, victim.id);

    const res = await roll(appKey, { id: victim.id });

    expect(expectRpcFailure(res, 'CONFLICT', 'apiKeys.roll').message).toBe(`API key ${victim.id} has been revoked: a revoked key cannot be rolled; create a new key`);
    expect(await stored(a.db, org.id, victim.id)).toEqual(before);
  });

  it('answers 409 CONFLICT for an expired key, and rolls nothing', async () => {
    const { org, victim, appKey } = await workspace({ expiresAt: new Date(Date.now() + 3_600_000) });
    await a.db('api_keys').where({ org_id: org.id, id: victim.id }).update({ expires_at: new Date(Date.now() - 1000) });
    const before = await stored(a.db, org.id, victim.id);

    const res = await roll(appKey, { id: victim.id });

    expect(expectRpcFailure(res, 'CONFLICT', 'apiKeys.roll').message).toBe(`API key ${victim.id} has expired: an expired key cannot be rolled; create a new key`);
    expect(await stored(a.db, org.id, victim.id)).toEqual(before);
  });

  it("answers 404 for another workspace's key, or an unknown one, and changes neither workspace's key", async () => {
    const mine = await workspace();
    const theirs = await workspace();
    const before = await stored(a.db, theirs.org.id, theirs.victim.id);

    const res = await roll(mine.appKey, { id: theirs.victim.id });

    expect(expectRpcFailure(res, 'NOT_FOUND', 'apiKeys.roll').message).toBe(`No API key ${JSON.stringify(theirs.victim.id)} in this workspace`);
    expect(await stored(a.db, theirs.org.id, theirs.victim.id)).toEqual(before);
    expect(JSON.stringify(res.body)).not.toContain(theirs.victim.key.slice(0, 12));
    expectRpcFailure(await roll(mine.appKey, { id: 'key_doesnotexist' }), 'NOT_FOUND', 'apiKeys.roll');
    expect((await statusesOf(theirs.victim.key))).toEqual([200, 200]);
  });

  it('answers 403 through the API itself (app only), even to a key holding apiKeys.create', async () => {
    const { org, victim, appKey } = await workspace();
    const before = await stored(b.db, org.id, victim.id);
    const res = await rpcPost(b.app, 'apiKeys.roll', { id: victim.id }, appKey);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'apiKeys.roll').message).toBe('apiKeys.roll is not exposed to the API');
    expect(await stored(b.db, org.id, victim.id)).toEqual(before);
  });

  it('answers 403 naming apiKeys.create to an app key without it', async () => {
    const { org, victim } = await workspace();
    const reader = generateApiKeySecret();
    await apiKeysQueries.insert(a.db, org.id, {
      id: newId('key'), memberId: null, name: unique('reader'), prefix: reader.prefix, secretHash: reader.hash, scopes: ['apiKeys.read', 'apiKeys.update'], expiresAt: null,
    });
    const before = await stored(a.db, org.id, victim.id);
    const res = await roll(reader.secret, { id: victim.id });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'apiKeys.roll').message).toBe('missing scope: apiKeys.create');
    expect(await stored(a.db, org.id, victim.id)).toEqual(before);
  });
});
