import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { ALL_SCOPES, createKey, createLead, createWorkspace, unique } from '../helpers/factories';
import { countRows, storedLead } from '../helpers/leads-procedures-helpers';
import { createLeadRest, deleteLeadRest, getLeadRest, patchLeadRest } from '../helpers/leads-rest';
import { errorOf, rpcPost } from '../helpers/rpc';
import { memoryLimiter, rateLimitOf } from '../helpers/rate-limit';

const ctx = createTestContext({ bodyLimit: '4kb' });
afterAll(() => ctx.close());

let orgId: string;
let key: string;
let leadId: string;
beforeAll(async () => {
  const ws = await createWorkspace(ctx.db);
  orgId = ws.org.id;
  key = ws.key;
  leadId = (await createLead(ctx.db, orgId)).id;
});

const valid = () => ({ name: unique('Lead'), phone: '+442079460018' });

/** Every route, as a call with the given key. */
const ROUTES = {
  'POST /api/v1/leads': (k: string | null) => createLeadRest(ctx.app, k, valid()),
  'GET /api/v1/leads/{id}': (k: string | null) => getLeadRest(ctx.app, k, leadId),
  'PATCH /api/v1/leads/{id}': (k: string | null) => patchLeadRest(ctx.app, k, leadId, { notes: 'x' }),
  'DELETE /api/v1/leads/{id}': (k: string | null) => deleteLeadRest(ctx.app, k, leadId),
};
const SCOPE_OF: Record<keyof typeof ROUTES, string> = {
  'POST /api/v1/leads': 'leads.create',
  'GET /api/v1/leads/{id}': 'leads.read',
  'PATCH /api/v1/leads/{id}': 'leads.update',
  'DELETE /api/v1/leads/{id}': 'leads.delete',
};

describe('authentication and scopes', () => {
  it.each(Object.keys(ROUTES) as (keyof typeof ROUTES)[])('%s answers 401 in the REST error body without a key', async (route) => {
    const res = await ROUTES[route](null);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  it.each(Object.keys(ROUTES) as (keyof typeof ROUTES)[])('%s answers 403 naming its scope to a key without it, and writes nothing', async (route) => {
    const scope = SCOPE_OF[route];
    const { key: narrow } = await createKey(ctx.db, orgId, { scopes: ALL_SCOPES.filter((s) => s !== scope) });
    const before = await countRows(ctx.db, orgId);
    const res = await ROUTES[route](narrow);
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining(scope) });
    expect(await countRows(ctx.db, orgId)).toEqual(before);
    expect((await storedLead(ctx.db, orgId, leadId)).notes).not.toBe('x');
  });

  // An action is the same action whichever door it comes through: only the REST list is open to every tier.
  it.each((['FREE', 'PRO'] as const).flatMap((tier) => (Object.keys(ROUTES) as (keyof typeof ROUTES)[]).map((route) => [tier, route] as const)))(
    'answers a %s workspace\'s key 403 on %s, as the action endpoints do, and writes nothing',
    async (tier, route) => {
      const ws = await createWorkspace(ctx.db, { tier });
      const own = (await createLead(ctx.db, ws.org.id)).id;
      const before = await countRows(ctx.db, ws.org.id);
      const res = await {
        'POST /api/v1/leads': () => createLeadRest(ctx.app, ws.key, valid()),
        'GET /api/v1/leads/{id}': () => getLeadRest(ctx.app, ws.key, own),
        'PATCH /api/v1/leads/{id}': () => patchLeadRest(ctx.app, ws.key, own, { notes: 'x' }),
        'DELETE /api/v1/leads/{id}': () => deleteLeadRest(ctx.app, ws.key, own),
      }[route]();
      expect([res.status, res.body.error]).toEqual([403, { code: 'FORBIDDEN', message: `This action needs the BUSINESS tier (only the REST leads list is open to every tier); this workspace is on ${tier}` }]);
      expect(await countRows(ctx.db, ws.org.id)).toEqual(before);
      expect((await storedLead(ctx.db, ws.org.id, own)).notes).not.toBe('x');
    },
  );
});

describe('invalid input', () => {
  it.each([
    ['a missing phone and an empty name', { name: '' }],
    ['a bad email, an unknown status and an unknown field', { name: 'Ann', phone: '+442079460018', email: 'nope', status: 'WON', colour: 'red' }],
    ['an assignee not in the workspace', { name: 'Ann', phone: '+442079460018', assignedToId: 'mem_nobody' }],
  ])('POST answers %s with the issues and message leads.create gives', async (_, body) => {
    const rest = await createLeadRest(ctx.app, key, body);
    const rpc = await rpcPost(ctx.app, 'leads.create', body, key);
    expect(rest.status).toBe(rpc.status);
    expect(rest.body.error).toEqual({ code: errorOf(rpc).data.code, message: errorOf(rpc).message, ...(errorOf(rpc).data.issues ? { issues: errorOf(rpc).data.issues } : {}) });
  });

  it('PATCH answers a bad field with the issues leads.update gives, and the lead stays', async () => {
    const body = { status: 'WON', phones: ['x'] };
    const rest = await patchLeadRest(ctx.app, key, leadId, body);
    const rpc = await rpcPost(ctx.app, 'leads.update', { id: leadId, ...body }, key);
    expect(rest.status).toBe(400);
    expect(rest.body.error).toEqual({ code: 'BAD_REQUEST', message: errorOf(rpc).message, issues: errorOf(rpc).data.issues });
  });

  it('answers 400 to a PATCH body that is not an object', async () => {
    const res = await patchLeadRest(ctx.app, key, leadId, [1]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });

  it('answers 400 to malformed JSON and to a missing body', async () => {
    const malformed = await createLeadRest(ctx.app, key, '{"name":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(/^Malformed JSON/) } });
    const missing = await request(ctx.app).post('/api/v1/leads').set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json');
    expect(missing.status).toBe(400);
  });

  it.each(['POST', 'PATCH'])('%s answers 415 UNSUPPORTED_MEDIA_TYPE to a text/plain body', async (method) => {
    const path = method === 'POST' ? '/api/v1/leads' : `/api/v1/leads/${leadId}`;
    const res = await request(ctx.app)[method === 'POST' ? 'post' : 'patch'](path)
      .set('Authorization', `Bearer ${key}`).set('Content-Type', 'text/plain').send(JSON.stringify(valid()));
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 413 PAYLOAD_TOO_LARGE to a body over the limit, and stores nothing', async () => {
    const before = await countRows(ctx.db, orgId);
    const res = await createLeadRest(ctx.app, key, { ...valid(), notes: 'x'.repeat(8000) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await countRows(ctx.db, orgId)).toEqual(before);
  });
});

describe('wrong methods', () => {
  it.each([
    ['/api/v1/leads', 'GET, HEAD, POST'],
    ['/api/v1/leads/lead_x', 'DELETE, GET, HEAD, PATCH'],
  ])('PUT %s answers 405 with Allow: %s', async (path, allow) => {
    const res = await request(ctx.app).put(path).set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json').send('{}');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
    expect(res.body.error.code).toBe('METHOD_NOT_SUPPORTED');
  });
});

describe('rate limits', () => {
  const limited = createTestContext({ rateLimiter: memoryLimiter({ perKey: 2 }) });
  afterAll(() => limited.close());

  it("answers 429 with Retry-After once the key's requests are used up, across the REST lead routes", async () => {
    const ws = await createWorkspace(limited.db);
    const lead = await createLead(limited.db, ws.org.id);
    const first = await getLeadRest(limited.app, ws.key, lead.id);
    expect(first.status).toBe(200);
    expect(rateLimitOf(first)).toMatchObject({ name: 'key', q: 2, r: 1 });
    expect((await patchLeadRest(limited.app, ws.key, lead.id, { notes: 'ok' })).status).toBe(200);
    const refused = await createLeadRest(limited.app, ws.key, valid());
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('TOO_MANY_REQUESTS');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});
