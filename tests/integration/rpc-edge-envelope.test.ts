import request from 'supertest';
import superjson from 'superjson';
import { createTestContext } from '../helpers/test-app';
import { createLead, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcError } from '../helpers/rpc-edge-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

async function leadCount(orgId: string): Promise<number> {
  const row = await ctx.db('leads').where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

function storedLead(orgId: string, id: string) {
  return ctx.db('leads').where({ org_id: orgId, id }).first();
}

describe('GET leads.getById (success envelope)', () => {
  it('answers 200 with exactly {"result":{"data":{"json","meta"}}}, Dates described by superjson meta', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2031-05-06T07:08:09.010Z') });
    const res = await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['result']);
    expect(Object.keys(res.body.result)).toEqual(['data']);
    expect(Object.keys(res.body.result.data).sort()).toEqual(['json', 'meta']);
    expect(res.body.result.data.json.id).toBe(lead.id);
    expect(res.body.result.data.json.nextCallAt).toBe('2031-05-06T07:08:09.010Z');
    expect(res.body.result.data.meta.values).toMatchObject({ nextCallAt: ['Date'], createdAt: ['Date'], updatedAt: ['Date'] });
    expect(resultOf(res).nextCallAt).toEqual(new Date('2031-05-06T07:08:09.010Z'));
  });

  it('accepts the GET input as a plain {"json": ...} envelope with no meta', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const res = await request(ctx.app)
      .get('/api/v1/rpc/leads.getById')
      .query({ input: JSON.stringify({ json: { id: lead.id } }) })
      .set('Authorization', `Bearer ${ws.key}`);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toMatchObject({ id: lead.id, name: lead.name });
  });
});

describe('POST leads.create (Date round-trip)', () => {
  it('stores a Date sent by a superjson client in nextCallAt and answers it as a Date', async () => {
    const ws = await createWorkspace(ctx.db);
    const at = new Date('2030-01-02T03:04:05.678Z');
    const res = await rpcPost(ctx.app, 'leads.create', { name: unique('Ada'), phone: '+442079460001', nextCallAt: at }, ws.key);
    expect(res.status).toBe(200);
    expect(res.body.result.data.meta.values.nextCallAt).toEqual(['Date']);
    const lead = resultOf(res);
    expect(lead.nextCallAt).toBeInstanceOf(Date);
    expect(lead.nextCallAt).toEqual(at);
    const row = await storedLead(ws.org.id, lead.id);
    expect(row.next_call_at).toEqual(at);
  });

  it('accepts nextCallAt as an ISO string with an offset from a plain-JSON client and stores that instant', async () => {
    const ws = await createWorkspace(ctx.db);
    const body = { json: { name: unique('Bo'), phone: '+442079460002', nextCallAt: '2030-06-01T12:30:00+02:00' } };
    const res = await request(ctx.app)
      .post('/api/v1/rpc/leads.create')
      .set('Authorization', `Bearer ${ws.key}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body));
    expect(res.status).toBe(200);
    const lead = resultOf(res);
    expect(lead.nextCallAt).toEqual(new Date('2030-06-01T10:30:00.000Z'));
    const row = await storedLead(ws.org.id, lead.id);
    expect(row.next_call_at).toEqual(new Date('2030-06-01T10:30:00.000Z'));
  });

  it('answers 400 naming nextCallAt for an ISO string without a time zone, and stores nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const body = { json: { name: unique('Cy'), phone: '+442079460003', nextCallAt: '2030-06-01T12:30:00' } };
    const res = await request(ctx.app)
      .post('/api/v1/rpc/leads.create')
      .set('Authorization', `Bearer ${ws.key}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body));
    const error = expectRpcError(res, 'BAD_REQUEST', 'leads.create');
    expect(error.data.issues?.map((i) => i.path)).toEqual([['nextCallAt']]);
    expect(await leadCount(ws.org.id)).toBe(0);
  });

  it('answers 400 naming nextCallAt when superjson meta revives an invalid Date', async () => {
    const ws = await createWorkspace(ctx.db);
    const body = {
      json: { name: unique('Di'), phone: '+442079460004', nextCallAt: 'not a date' },
      meta: { values: { nextCallAt: ['Date'] }, v: 1 },
    };
    const res = await request(ctx.app)
      .post('/api/v1/rpc/leads.create')
      .set('Authorization', `Bearer ${ws.key}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body));
    const error = expectRpcError(res, 'BAD_REQUEST', 'leads.create');
    expect(error.data.issues?.map((i) => i.path)).toEqual([['nextCallAt']]);
    expect(await leadCount(ws.org.id)).toBe(0);
  });
});

describe('GET leads.getAll (no input)', () => {
  async function workspaceWithTwoLeads() {
    const ws = await createWorkspace(ctx.db);
    const a = await createLead(ctx.db, ws.org.id);
    const b = await createLead(ctx.db, ws.org.id);
    return { ws, ids: [a.id, b.id].sort() };
  }

  function expectFirstDefaultPage(res: { status: number; body: any }, ids: string[]) {
    expect(res.status).toBe(200);
    const page = resultOf(res);
    expect(page.pagination).toEqual({ page: 1, pageSize: 50, total: 2, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
    expect(page.data.map((l: { id: string }) => l.id).sort()).toEqual(ids);
  }

  it('answers the first page of 50 when the input parameter is omitted', async () => {
    const { ws, ids } = await workspaceWithTwoLeads();
    const res = await request(ctx.app).get('/api/v1/rpc/leads.getAll').set('Authorization', `Bearer ${ws.key}`);
    expectFirstDefaultPage(res, ids);
  });

  it('reads the tRPC client form {"json":null,"meta":{"values":["undefined"],"v":1}} as no input', async () => {
    const { ws, ids } = await workspaceWithTwoLeads();
    const input = JSON.stringify({ json: null, meta: { values: ['undefined'], v: 1 } });
    expect(input).toBe(JSON.stringify(superjson.serialize(undefined)));
    const res = await request(ctx.app).get('/api/v1/rpc/leads.getAll').query({ input }).set('Authorization', `Bearer ${ws.key}`);
    expectFirstDefaultPage(res, ids);
  });

  it('reads {"meta":{"values":["undefined"],"v":1}} (json omitted) as no input', async () => {
    const { ws, ids } = await workspaceWithTwoLeads();
    const input = JSON.stringify({ meta: { values: ['undefined'], v: 1 } });
    const res = await request(ctx.app).get('/api/v1/rpc/leads.getAll').query({ input }).set('Authorization', `Bearer ${ws.key}`);
    expectFirstDefaultPage(res, ids);
  });
});

describe('security headers', () => {
  const HELMET = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'SAMEORIGIN',
    'referrer-policy': 'no-referrer',
    // cross-origin on the public API only, so browsers of other origins can read it (cors.test.ts).
    'cross-origin-resource-policy': 'cross-origin',
  };

  it('a successful action answer carries helmet headers, no X-Powered-By and no cookie', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'leads.getAll', undefined, ws.key);
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject(HELMET);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(res.headers).not.toHaveProperty('x-powered-by');
    expect(res.headers).not.toHaveProperty('set-cookie');
  });

  it('an error answer carries the same headers and no X-Powered-By', async () => {
    const res = await request(ctx.app).get('/api/v1/rpc/leads.getAll');
    expectRpcError(res, 'UNAUTHORIZED', 'leads.getAll');
    expect(res.headers).toMatchObject(HELMET);
    expect(res.headers).not.toHaveProperty('x-powered-by');
    expect(res.headers).not.toHaveProperty('set-cookie');
  });
});

describe('routes outside the action endpoints', () => {
  it('answers 404 with the REST error body for an unknown route', async () => {
    const res = await request(ctx.app).get('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringMatching(/No route for GET \/no\/such\/route/) } });
    expect(res.headers).not.toHaveProperty('x-powered-by');
  });

  it('treats /api/v1/rpcx as an unknown route, not as an action endpoint', async () => {
    const res = await request(ctx.app).post('/api/v1/rpcx/leads.create');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringMatching(/No route for POST \/api\/v1\/rpcx/) } });
  });
});
