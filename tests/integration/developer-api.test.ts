import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey, createMember, createOrg } from '../helpers/factories';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { signPlaygroundToken } from '../../src/auth/playground-token';
import { createProcedureRegistry } from '../../src/procedures';
import { TABLES } from '../../src/db/tables';
import { KNOWN_SCOPES } from '../../src/auth/scopes';

const ctx = createTestContext();
afterAll(() => ctx.close());

const jwtKeys = testJwtKeys;

async function workspace(options: { permissions?: string[]; features?: string[] } = {}) {
  const org = await createOrg(ctx.db, { features: options.features ?? ['DEVELOPER_API'] });
  const member = await createMember(ctx.db, org.id, options.permissions ?? ['DEVELOPER']);
  const session = signMemberSession(jwtKeys.session, { memberId: member.id, orgId: org.id }).token;
  return { org, member, session, auth: `Bearer ${session}` };
}

const createBody = { name: 'CRM sync', scopes: ['leads.read', 'leads.create'] };

describe('developer JSON routes: only a member session opens them', () => {
  it.each([
    ['GET', '/developer/api/me'],
    ['GET', '/developer/api/keys'],
    ['POST', '/developer/api/keys'],
    ['POST', '/developer/api/keys/key_x/revoke'],
    ['POST', '/developer/api/keys/key_x/roll'],
    ['GET', '/developer/api/procedures'],
  ])('%s %s answers 401 with the REST error body to no header, an API key and a test token', async (method, path) => {
    const ws = await workspace();
    const { key } = await createKey(ctx.db, ws.org.id);
    const token = signPlaygroundToken(jwtKeys.token, { memberId: ws.member.id, orgId: ws.org.id, scopes: ['leads.read'] }).token;
    const call = (auth?: string) => {
      const req = method === 'GET' ? request(ctx.app).get(path) : request(ctx.app).post(path).send(createBody);
      return auth ? req.set('Authorization', auth) : req;
    };

    for (const res of [await call(), await call(`Bearer ${key}`), await call(`Bearer ${token}`)]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
  });
});

describe('GET /developer/api/me', () => {
  it('answers the member, the workspace name and whether DEVELOPER and DEVELOPER_API hold', async () => {
    const ws = await workspace({ permissions: [], features: [] });
    const res = await request(ctx.app).get('/developer/api/me').set('Authorization', ws.auth);

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ member: { id: ws.member.id }, workspace: { id: ws.org.id, name: ws.org.name }, developer: false, developerApi: false });
  });
});

describe('POST /developer/api/keys and GET /developer/api/keys', () => {
  it('answers 201 with the secret once, stores the session member, and the listing never carries it', async () => {
    const ws = await workspace();
    const created = await request(ctx.app).post('/developer/api/keys').set('Authorization', ws.auth).send({ ...createBody, expiresAt: '2099-01-01T00:00:00Z' });

    expect(created.status).toBe(201);
    expect(created.body.key.secret).toMatch(/^wsk_/);
    expect(created.body.key).toMatchObject({ name: 'CRM sync', scopes: ['leads.read', 'leads.create'], expiresAt: '2099-01-01T00:00:00.000Z', revokedAt: null });
    const stored = await ctx.db(TABLES.apiKeys).where({ org_id: ws.org.id, id: created.body.key.id }).first();
    expect(stored).toMatchObject({ org_id: ws.org.id, member_id: ws.member.id });

    const listed = await request(ctx.app).get('/developer/api/keys').set('Authorization', ws.auth);
    expect(listed.status).toBe(200);
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toEqual([created.body.key.id]);
    expect(Object.keys(listed.body.keys[0]).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'previousSecret', 'revokedAt', 'scopes']);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key.secret);
  });

  it('lists only the session workspace keys, to a member without DEVELOPER too', async () => {
    const ws = await workspace({ permissions: [] });
    const own = await createKey(ctx.db, ws.org.id);
    const other = await workspace();
    await createKey(ctx.db, other.org.id);

    const res = await request(ctx.app).get('/developer/api/keys').set('Authorization', ws.auth);
    expect(res.status).toBe(200);
    expect(res.body.keys.map((k: { id: string }) => k.id)).toEqual([own.id]);
  });

  it.each([
    ['the member lacks DEVELOPER', { permissions: [] }, 'DEVELOPER permission'],
    ['the workspace lacks DEVELOPER_API', { features: [] }, 'DEVELOPER_API feature'],
  ])('answers 403 and creates nothing when %s', async (_label, options, message) => {
    const ws = await workspace(options);
    const res = await request(ctx.app).post('/developer/api/keys').set('Authorization', ws.auth).send(createBody);

    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain(message);
    expect(await ctx.db(TABLES.apiKeys).where({ org_id: ws.org.id })).toHaveLength(0);
  });

  it.each([
    ['an unknown scope', { name: 'x', scopes: ['leads.raed'] }],
    ['no scope', { name: 'x', scopes: [] }],
    ['a blank name', { name: ' ', scopes: ['leads.read'] }],
    ['an expiry in the past', { name: 'x', scopes: ['leads.read'], expiresAt: '2001-01-01T00:00:00Z' }],
  ])('answers 400 for %s', async (_label, body) => {
    const ws = await workspace();
    const res = await request(ctx.app).post('/developer/api/keys').set('Authorization', ws.auth).send(body);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });
});

describe('POST /developer/api/keys/:id/revoke', () => {
  it('revokes a key of the session workspace', async () => {
    const ws = await workspace();
    const { id } = await createKey(ctx.db, ws.org.id);
    const res = await request(ctx.app).post(`/developer/api/keys/${id}/revoke`).set('Authorization', ws.auth);

    expect(res.status).toBe(200);
    expect(res.body.key.revokedAt).not.toBeNull();
    expect((await ctx.db(TABLES.apiKeys).where({ org_id: ws.org.id, id }).first()).revoked_at).not.toBeNull();
  });

  it('answers 404 for another workspace key and leaves it active', async () => {
    const ws = await workspace();
    const other = await workspace();
    const { id } = await createKey(ctx.db, other.org.id);
    const res = await request(ctx.app).post(`/developer/api/keys/${id}/revoke`).set('Authorization', ws.auth);

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await ctx.db(TABLES.apiKeys).where({ org_id: other.org.id, id }).first()).revoked_at).toBeNull();
  });

  it('answers 403 to a member without DEVELOPER and leaves the key active', async () => {
    const ws = await workspace({ permissions: [] });
    const { id } = await createKey(ctx.db, ws.org.id);
    const res = await request(ctx.app).post(`/developer/api/keys/${id}/revoke`).set('Authorization', ws.auth);

    expect(res.status).toBe(403);
    expect((await ctx.db(TABLES.apiKeys).where({ org_id: ws.org.id, id }).first()).revoked_at).toBeNull();
  });
});

describe('GET /developer/api/procedures', () => {
  it('lists exactly the exposed procedures, grouped by router, with method, scope and input schema', async () => {
    const ws = await workspace();
    const res = await request(ctx.app).get('/developer/api/procedures').set('Authorization', ws.auth);

    expect(res.status).toBe(200);
    const listed = res.body.routers.flatMap((r: { router: string; procedures: { name: string }[] }) =>
      r.procedures.map((p) => { expect(p.name.startsWith(`${r.router}.`)).toBe(true); return p.name; }));
    const exposed = [...createProcedureRegistry().values()].filter((p) => p.exposed).map((p) => p.name);
    expect(listed.sort()).toEqual(exposed.sort());
    const getAll = res.body.routers.find((r: { router: string }) => r.router === 'leads').procedures.find((p: { name: string }) => p.name === 'leads.getAll');
    expect(getAll).toMatchObject({ method: 'GET', scope: 'leads.read', deprecated: null, inputOptional: true, inputSchema: { type: 'object' } });
  });

  it('carries each procedure a sample input from its examples, with required ids and no optional references', async () => {
    const ws = await workspace();
    const res = await request(ctx.app).get('/developer/api/procedures').set('Authorization', ws.auth);

    const byName = new Map<string, { sampleInput: Record<string, unknown> }>(
      res.body.routers.flatMap((r: { procedures: { name: string }[] }) => r.procedures.map((p) => [p.name, p])));
    expect(byName.get('leads.getById')!.sampleInput).toEqual({ id: 'lead_3kTMd9VbX2qLr7NwY5pHcZ' });
    const create = byName.get('leads.create')!.sampleInput;
    expect(create).toMatchObject({ name: expect.stringMatching(/\S/), phone: expect.stringMatching(/\S/), email: 'ana@example.com' });
    // An example member id names no member: an optional reference would turn a call that could succeed into a 404.
    expect(create).not.toHaveProperty('assignedToId');
  });

  it('groups every scope a key may hold by resource for the None / Read / Write pickers', async () => {
    const ws = await workspace();
    const res = await request(ctx.app).get('/developer/api/procedures').set('Authorization', ws.auth);

    const resources = res.body.resources as { resource: string; read: string | null; write: string[]; optIn: string[] }[];
    expect(resources.find((r) => r.resource === 'leads')).toEqual({ resource: 'leads', read: 'leads.read', write: ['leads.create', 'leads.update', 'leads.delete'], optIn: [] });
    expect(resources.find((r) => r.resource === 'events')).toEqual({ resource: 'events', read: 'events.read', write: [], optIn: [] });
    // contacts.erase is in no level: Write for contacts does not grant it; it is a box of its own.
    expect(resources.find((r) => r.resource === 'contacts')).toEqual({
      resource: 'contacts', read: 'contacts.read', write: ['contacts.create', 'contacts.update', 'contacts.delete'], optIn: ['contacts.erase'],
    });
    const listed = resources.flatMap((r) => (r.read ? [r.read] : []).concat(r.write, r.optIn));
    expect(listed.sort()).toEqual([...KNOWN_SCOPES].sort());
  });
});

describe('GET /developer (the page)', () => {
  it('serves the HTML with its own CSP and only same-origin assets, which answer too', async () => {
    const res = await request(ctx.app).get('/developer');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const assets = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => !u.startsWith('data:'));
    expect(assets.every((u) => u.startsWith('/'))).toBe(true);
    expect(res.text).not.toMatch(/<script>|<style|style="/);
    for (const asset of ['/developer/assets/developer.js', '/developer/assets/developer.css']) {
      expect(assets).toContain(asset);
      const served = await request(ctx.app).get(asset);
      expect(served.status).toBe(200);
      expect(served.headers['content-security-policy']).toBe(csp);
    }
  });
});
