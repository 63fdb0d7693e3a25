import { createHash } from 'node:crypto';
import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createMember, createOrg } from '../helpers/factories';
import { rpcPost, errorOf } from '../helpers/rpc';
import { cli, cliJson, pollUntil } from '../helpers/cli-harness';
import { isWellFormedApiKey } from '../../src/domain/api-key-secret';

// Cache of verified keys off, so a revocation is seen by the very next request.
const ctx = createTestContext({ keyCacheTtlMs: 0 });
afterAll(() => ctx.close());

const KEY_SHAPE = /^wsk_[0-9A-Za-z]{40}$/;

function listLeads(key: string) {
  return request(ctx.app).get('/api/v1/leads').set('Authorization', `Bearer ${key}`);
}

describe('cli key create', () => {
  it('prints the key once, and stores only its SHA-256 hash and prefix', async () => {
    const org = await createOrg(ctx.db);
    const member = await createMember(ctx.db, org.id, ['DEVELOPER']);

    const output = await cliJson('key', 'create', '--org', org.id, '--member', member.id, '--name', 'Zapier', '--scopes', 'leads.read,leads.create');

    expect(output).toEqual({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(KEY_SHAPE), prefix: output.key.slice(0, 12), scopes: ['leads.read', 'leads.create'], expiresAt: null });
    expect(isWellFormedApiKey(output.key)).toBe(true);
    const row = await ctx.db('api_keys').where({ org_id: org.id, id: output.id }).first();
    expect(row).toMatchObject({ member_id: member.id, name: 'Zapier', scopes: ['leads.read', 'leads.create'], prefix: output.key.slice(0, 12), expires_at: null, revoked_at: null, last_used_at: null });
    expect(row.secret_hash).not.toBe(output.key);
    expect(row.secret_hash).toBe(createHash('sha256').update(output.key).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(output.key);
    expect(JSON.stringify(row)).not.toContain(output.key.slice(12));
  });

  it('issues a key that works over HTTP', async () => {
    const org = await createOrg(ctx.db);
    const { key } = await cliJson('key', 'create', '--org', org.id, '--scopes', 'leads.read');

    const res = await listLeads(key);

    expect(res.status).toBe(200);
    expect(res.body.pagination).toMatchObject({ total: 0, totalPages: 1 });
  });

  it('issues a key whose scopes are enforced: a write it lacks is 403 naming the scope', async () => {
    const org = await createOrg(ctx.db);
    const { key } = await cliJson('key', 'create', '--org', org.id, '--scopes', 'leads.read');

    const res = await rpcPost(ctx.app, 'leads.create', { name: 'X', phone: '+442079460000' }, key);

    expect(res.status).toBe(403);
    expect(errorOf(res).message).toBe('missing scope: leads.create');
  });

  it('with --expires-at in the past, issues a key that answers 401 expired', async () => {
    const org = await createOrg(ctx.db);

    const output = await cliJson('key', 'create', '--org', org.id, '--scopes', 'leads.read', '--expires-at', '2020-01-01T00:00:00Z');

    expect(output.expiresAt).toBe('2020-01-01T00:00:00.000Z');
    const row = await ctx.db('api_keys').where({ org_id: org.id, id: output.id }).first();
    expect(row.expires_at.toISOString()).toBe('2020-01-01T00:00:00.000Z');
    const res = await listLeads(output.key);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'API key has expired' } });
  });

  it('exits 1 naming an unknown scope, and stores no key', async () => {
    const org = await createOrg(ctx.db);

    const run = await cli('key', 'create', '--org', org.id, '--scopes', 'leads.read,leads.frobnicate', '--json');

    expect(run).toEqual({ code: 1, out: '', err: 'Unknown scope(s): leads.frobnicate\n' });
    expect(await ctx.db('api_keys').where({ org_id: org.id })).toEqual([]);
  });

  it('exits 1 for an unknown workspace or a member of another workspace', async () => {
    const org = await createOrg(ctx.db);
    const stranger = await createMember(ctx.db, (await createOrg(ctx.db)).id);

    expect(await cli('key', 'create', '--org', 'org_nosuch', '--scopes', 'leads.read')).toEqual({ code: 1, out: '', err: 'No workspace org_nosuch\n' });
    const run = await cli('key', 'create', '--org', org.id, '--member', stranger.id, '--scopes', 'leads.read');
    expect(run).toEqual({ code: 1, out: '', err: `No member ${stranger.id} in workspace ${org.id}\n` });
    expect(await ctx.db('api_keys').where({ org_id: org.id })).toEqual([]);
  });

  it('exits 2 when --scopes is missing or --expires-at is not a time', async () => {
    const org = await createOrg(ctx.db);

    const noScopes = await cli('key', 'create', '--org', org.id);
    const badTime = await cli('key', 'create', '--org', org.id, '--scopes', 'leads.read', '--expires-at', 'tomorrow');

    expect(noScopes.code).toBe(2);
    expect(noScopes.err).toMatch(/^missing --scopes\n/);
    expect(badTime.code).toBe(2);
    expect(badTime.err).toMatch(/^--expires-at must be an ISO 8601 time\n/);
    expect(await ctx.db('api_keys').where({ org_id: org.id })).toEqual([]);
  });
});

describe('cli key list', () => {
  it('lists the keys with scopes, prefix, expiry, revocation and last use, never the secret or its hash', async () => {
    const org = await createOrg(ctx.db);
    const used = await cliJson('key', 'create', '--org', org.id, '--name', 'used', '--scopes', 'leads.read', '--expires-at', '2099-01-01T00:00:00Z');
    const revoked = await cliJson('key', 'create', '--org', org.id, '--name', 'revoked', '--scopes', 'leads.read,leads.delete');
    expect((await listLeads(used.key)).status).toBe(200);
    await pollUntil(() => ctx.db('api_keys').where({ org_id: org.id, id: used.id }).first(), (row) => row.last_used_at !== null);
    const revocation = await cliJson('key', 'revoke', revoked.id);

    const run = await cli('key', 'list', '--org', org.id, '--json');

    expect(run.code).toBe(0);
    const output = JSON.parse(run.out) as Record<string, unknown>[];
    const rows = await ctx.db('api_keys').where({ org_id: org.id });
    const byId = new Map(output.map((k) => [k.id, k]));
    expect(output).toHaveLength(2);
    expect(Object.keys(output[0]!).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'memberId', 'name', 'orgId', 'prefix', 'previousSecret', 'revokedAt', 'scopes']);
    expect(byId.get(used.id)).toMatchObject({ prefix: used.key.slice(0, 12), scopes: ['leads.read'], expiresAt: '2099-01-01T00:00:00.000Z', revokedAt: null, lastUsedAt: expect.any(String) });
    expect(byId.get(revoked.id)).toMatchObject({ prefix: revoked.key.slice(0, 12), scopes: ['leads.read', 'leads.delete'], expiresAt: null, revokedAt: revocation.revokedAt, lastUsedAt: null });
    const usedRow = rows.find((r: { id: string }) => r.id === used.id);
    expect(byId.get(used.id)!.lastUsedAt).toBe(usedRow.last_used_at.toISOString());
    for (const secret of [used.key, revoked.key, ...rows.map((r: { secret_hash: string }) => r.secret_hash)]) {
      expect(run.out).not.toContain(secret);
    }
    // The field naming a rolled key's previous secret (its prefix and end, null here) is the only "secret" allowed.
    expect(run.out.replaceAll('"previousSecret":null', '')).not.toMatch(/secret/i);
  });

  it('lists only the given workspace, and prints "no keys" for one without any', async () => {
    const org = await createOrg(ctx.db);
    const other = await createOrg(ctx.db);
    await cliJson('key', 'create', '--org', other.id, '--scopes', 'leads.read');

    expect(await cliJson('key', 'list', '--org', org.id)).toEqual([]);
    expect(await cli('key', 'list', '--org', org.id)).toEqual({ code: 0, out: 'no keys\n', err: '' });
  });

  it('exits 2 when --org is missing', async () => {
    const run = await cli('key', 'list', '--json');

    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^missing --org\n/);
  });
});

describe('cli key revoke', () => {
  it('prints {id, revokedAt}, stores the time, and the key answers 401 at once', async () => {
    const org = await createOrg(ctx.db);
    const created = await cliJson('key', 'create', '--org', org.id, '--scopes', 'leads.read');
    expect((await listLeads(created.key)).status).toBe(200);

    const output = await cliJson('key', 'revoke', created.id);

    expect(output).toEqual({ id: created.id, revokedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    const row = await ctx.db('api_keys').where({ org_id: org.id, id: created.id }).first();
    expect(row.revoked_at.toISOString()).toBe(output.revokedAt);
    const res = await listLeads(created.key);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'API key has been revoked' } });
  });

  it('keeps the first revocation time when a key is revoked twice', async () => {
    const org = await createOrg(ctx.db);
    const created = await cliJson('key', 'create', '--org', org.id, '--scopes', 'leads.read');
    const first = await cliJson('key', 'revoke', created.id);
    await new Promise((r) => setTimeout(r, 20));

    const second = await cliJson('key', 'revoke', created.id);

    expect(second).toEqual(first);
  });

  it('exits 1 for an unknown key id', async () => {
    expect(await cli('key', 'revoke', 'key_doesnotexist', '--json')).toEqual({ code: 1, out: '', err: 'no key key_doesnotexist\n' });
  });

  it('exits 2 without a key id, or with two', async () => {
    const none = await cli('key', 'revoke', '--json');
    const two = await cli('key', 'revoke', 'key_a', 'key_b');

    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^give exactly one KEY_ID\n/);
    expect(two.code).toBe(2);
    expect(two.err).toMatch(/^give exactly one KEY_ID\n/);
  });
});

describe('cli key roll', () => {
  it('prints the new secret once; both secrets work until the previous one ends, and key list shows it', async () => {
    const org = await createOrg(ctx.db);
    const created = await cliJson('key', 'create', '--org', org.id, '--name', 'Zapier', '--scopes', 'leads.read');

    const output = await cliJson('key', 'roll', created.id, '--expire-previous-in', '600');

    expect(output).toEqual({ id: created.id, key: expect.stringMatching(KEY_SHAPE), prefix: output.key.slice(0, 12), previousSecretExpiresAt: expect.any(String) });
    const row = await ctx.db('api_keys').where({ org_id: org.id, id: created.id }).first();
    expect(row).toMatchObject({ name: 'Zapier', scopes: ['leads.read'], prefix: output.key.slice(0, 12), previous_prefix: created.key.slice(0, 12) });
    expect(row.secret_hash).toBe(createHash('sha256').update(output.key).digest('hex'));
    expect(row.previous_secret_expires_at.toISOString()).toBe(output.previousSecretExpiresAt);
    expect(Date.parse(output.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(590_000);
    expect([(await listLeads(created.key)).status, (await listLeads(output.key)).status]).toEqual([200, 200]);
    const listed = await cliJson('key', 'list', '--org', org.id);
    expect(listed[0].previousSecret).toEqual({ prefix: created.key.slice(0, 12), expiresAt: output.previousSecretExpiresAt });
    const text = await cli('key', 'list', '--org', org.id);
    expect(text.out).toContain(`previous ${created.key.slice(0, 12)}… until ${output.previousSecretExpiresAt}`);
  });

  it('with --expire-previous-in 0, refuses the previous secret at once; without --json, prints the secret with a warning', async () => {
    const org = await createOrg(ctx.db);
    const created = await cliJson('key', 'create', '--org', org.id, '--scopes', 'leads.read');

    const run = await cli('key', 'roll', created.id, '--expire-previous-in', '0');

    expect(run.code).toBe(0);
    const secret = run.out.split('\n')[1]!;
    expect(secret).toMatch(KEY_SHAPE);
    expect(run.out).toBe(`rolled key ${created.id}\n${secret}\n(the secret is shown once: store it now)\nthe previous secret no longer works\n`);
    const old = await listLeads(created.key);
    expect([old.status, old.body.error.message]).toEqual([401, 'API key secret has been rolled']);
    expect((await listLeads(secret)).status).toBe(200);
  });

  it('keeps the previous secret a day by default', async () => {
    const org = await createOrg(ctx.db);
    const created = await cliJson('key', 'create', '--org', org.id, '--scopes', 'leads.read');
    const output = await cliJson('key', 'roll', created.id);
    const overlap = Date.parse(output.previousSecretExpiresAt) - Date.now();
    expect(overlap).toBeGreaterThan(86_400_000 - 60_000);
    expect(overlap).toBeLessThanOrEqual(86_400_000);
  });

  it('exits 1 for an unknown key, and for a revoked one, changing nothing', async () => {
    const org = await createOrg(ctx.db);
    const created = await cliJson('key', 'create', '--org', org.id, '--scopes', 'leads.read');
    await cliJson('key', 'revoke', created.id);
    const before = await ctx.db('api_keys').where({ org_id: org.id });

    expect(await cli('key', 'roll', 'key_doesnotexist', '--json')).toEqual({ code: 1, out: '', err: 'no key key_doesnotexist\n' });
    expect(await cli('key', 'roll', created.id)).toEqual({ code: 1, out: '', err: `API key ${created.id} has been revoked: a revoked key cannot be rolled; create a new key\n` });
    expect(await ctx.db('api_keys').where({ org_id: org.id })).toEqual(before);
  });

  it('exits 2 for an overlap outside 0 to 604800 seconds or not a whole number, or without a key id, changing nothing', async () => {
    const org = await createOrg(ctx.db);
    const created = await cliJson('key', 'create', '--org', org.id, '--scopes', 'leads.read');
    const before = await ctx.db('api_keys').where({ org_id: org.id });

    for (const bad of ['-1', '604801', '1.5', 'soon', '']) {
      const run = await cli('key', 'roll', created.id, '--expire-previous-in', bad);
      expect({ bad, code: run.code }).toEqual({ bad, code: 2 });
      expect(run.err).toMatch(/^--expire-previous-in must be a whole number of seconds from 0 to 604800\n/);
    }
    const none = await cli('key', 'roll');
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/^give exactly one KEY_ID\n/);
    expect(await ctx.db('api_keys').where({ org_id: org.id })).toEqual(before);
  });
});
