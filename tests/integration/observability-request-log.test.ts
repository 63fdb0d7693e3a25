import request from 'supertest';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { createKey, createWorkspace } from '../helpers/factories';
import { createObservedApp } from '../helpers/observability-app';
import { rpcGet, rpcPost } from '../helpers/rpc';
import { memoryLimiter } from '../helpers/rate-limit';

const ctx = createObservedApp();
// A key allowed one call a minute: its second call is refused after authentication (429).
const limited = createObservedApp({ db: ctx.db, rateLimiter: memoryLimiter({ perKey: 1 }) });
afterAll(() => ctx.close());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let counter = 0;
const newReqId = () => `test-${Date.now()}-${(counter += 1)}`;
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

describe('the request log line', () => {
  it('writes exactly one line per request naming id, method, procedure, status, duration, org and key', async () => {
    const ws = await createWorkspace(ctx.db);
    const reqId = newReqId();
    const res = await rpcGet(ctx.app, 'leads.getAll', {}, ws.key).set('X-Request-Id', reqId);
    expect(res.status).toBe(200);
    const line = await ctx.lineFor(reqId);
    await settle();
    expect(ctx.requestLines().filter((l) => l.reqId === reqId)).toHaveLength(1);
    expect(line).toMatchObject({
      level: 30, method: 'GET', route: 'leads.getAll', path: '/api/v1/rpc/leads.getAll', status: 200,
      orgId: ws.org.id, keyId: ws.keyId, authKind: 'apiKey',
    });
    expect(line.durationMs).toBeGreaterThan(0);
    expect(line.durationMs).toBeLessThan(10_000);
  });

  it('never contains the key, the cookie, the Authorization header, the query input or the body', async () => {
    const ws = await createWorkspace(ctx.db);
    const marker = `SECRET-MARKER-${Date.now()}`;
    const postId = newReqId();
    const post = await rpcPost(ctx.app, 'leads.create', { name: marker, phone: '+442079460018', nextCallAt: new Date() }, ws.key)
      .set('Cookie', `session=cookie-${marker}`)
      .set('X-Request-Id', postId);
    expect(post.status).toBe(200);
    const getId = newReqId();
    const get = await rpcGet(ctx.app, 'leads.getAll', { search: `query-${marker}` }, ws.key).set('X-Request-Id', getId);
    expect(get.status).toBe(200);
    expect((await ctx.lineFor(postId)).orgId).toBe(ws.org.id);
    expect((await ctx.lineFor(getId)).path).toBe('/api/v1/rpc/leads.getAll');
    const output = ctx.output();
    expect(output).not.toContain(ws.key);
    expect(output).not.toContain(marker);
    expect(output).not.toMatch(/authorization|cookie|bearer/i);
  });

  it('names the route pattern of the REST list and the requested name of an unknown procedure', async () => {
    const ws = await createWorkspace(ctx.db);
    const restId = newReqId();
    await request(ctx.app).get('/api/v1/leads?pageSize=2').set('Authorization', `Bearer ${ws.key}`).set('X-Request-Id', restId).expect(200);
    expect(await ctx.lineFor(restId)).toMatchObject({ route: 'GET /api/v1/leads', path: '/api/v1/leads', status: 200, orgId: ws.org.id });
    const unknownId = newReqId();
    await rpcGet(ctx.app, 'leads.noSuchThing', undefined, ws.key).set('X-Request-Id', unknownId).expect(404);
    expect(await ctx.lineFor(unknownId)).toMatchObject({ route: 'leads.noSuchThing', status: 404, keyId: ws.keyId });
    const missingId = newReqId();
    await request(ctx.app).get('/no/such/page').set('X-Request-Id', missingId).expect(404);
    expect(await ctx.lineFor(missingId)).toMatchObject({ route: 'unmatched', path: '/no/such/page', status: 404 });
  });

  it('labels a route of a mounted router by its full pattern, on success and when it throws', async () => {
    const ws = await createWorkspace(ctx.db);
    const session = signMemberSession(testJwtKeys.session, { memberId: ws.member.id, orgId: ws.org.id }).token;
    const okId = newReqId();
    await request(ctx.app).get('/developer/api/keys').set('Authorization', `Bearer ${session}`).set('X-Request-Id', okId).expect(200);
    expect(await ctx.lineFor(okId)).toMatchObject({ route: 'GET /developer/api/keys', status: 200 });
    const missingId = newReqId();
    await request(ctx.app).post('/developer/api/keys/key_missing/revoke').set('Authorization', `Bearer ${session}`).set('X-Request-Id', missingId).expect(404);
    expect(await ctx.lineFor(missingId)).toMatchObject({ route: 'POST /developer/api/keys/:id/revoke', path: '/developer/api/keys/key_missing/revoke', status: 404 });
  });
});

describe('org id and key id in the line', () => {
  it('names the org and key of a call refused after authentication (403 missing scope)', async () => {
    const ws = await createWorkspace(ctx.db);
    const narrow = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    const reqId = newReqId();
    await rpcPost(ctx.app, 'leads.create', { name: 'x', phone: '+442079460018' }, narrow.key).set('X-Request-Id', reqId).expect(403);
    expect(await ctx.lineFor(reqId)).toMatchObject({ status: 403, orgId: ws.org.id, keyId: narrow.id });
  });

  it("names the org and key of a call over the key's rate limit (429), on both the action endpoints and the REST list", async () => {
    for (const call of [
      (key: string) => rpcGet(limited.app, 'leads.getAll', {}, key),
      (key: string) => request(limited.app).get('/api/v1/leads').set('Authorization', `Bearer ${key}`),
    ]) {
      const ws = await createWorkspace(ctx.db);
      await call(ws.key).expect(200);
      const reqId = newReqId();
      await call(ws.key).set('X-Request-Id', reqId).expect(429);
      expect(await limited.lineFor(reqId)).toMatchObject({ status: 429, orgId: ws.org.id, keyId: ws.keyId });
    }
  });

  it('leaves them out for a 401 (invalid key), on both the action endpoints and the REST list', async () => {
    const rpcId = newReqId();
    await rpcGet(ctx.app, 'leads.getAll', {}, 'wsk_not_a_real_key').set('X-Request-Id', rpcId).expect(401);
    const restId = newReqId();
    await request(ctx.app).get('/api/v1/leads').set('Authorization', 'Bearer wsk_nope').set('X-Request-Id', restId).expect(401);
    for (const id of [rpcId, restId]) {
      const line = await ctx.lineFor(id);
      expect(line.status).toBe(401);
      expect(line).not.toHaveProperty('orgId');
      expect(line).not.toHaveProperty('keyId');
    }
  });
});

describe('X-Request-Id', () => {
  it('echoes a safe incoming id, on an error answer too', async () => {
    const ok = await request(ctx.app).get('/healthz').set('X-Request-Id', 'abc.DEF_123-xyz');
    expect(ok.headers['x-request-id']).toBe('abc.DEF_123-xyz');
    const refused = await rpcGet(ctx.app, 'leads.getAll', {}, null).set('X-Request-Id', 'edge-42');
    expect(refused.status).toBe(401);
    expect(refused.headers['x-request-id']).toBe('edge-42');
  });

  it('generates a UUID when none is sent, and logs the one it answered with', async () => {
    const res = await request(ctx.app).get('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect((await ctx.lineFor(String(res.headers['x-request-id']))).status).toBe(404);
  });

  it.each([
    ['with a space', 'has space'],
    ['with a quote and angle brackets', '"><script>'],
    ['longer than 128 characters', 'a'.repeat(129)],
    ['empty', ''],
  ])('replaces an incoming id %s with a generated one', async (_label, unsafe) => {
    const res = await request(ctx.app).get('/healthz').set('X-Request-Id', unsafe);
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('keeps an id of exactly 128 safe characters', async () => {
    const id = 'b'.repeat(128);
    const res = await request(ctx.app).get('/healthz').set('X-Request-Id', id);
    expect(res.headers['x-request-id']).toBe(id);
  });
});
