import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey, createOrg, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost } from '../helpers/rpc';
import { createEdgeRegistry, createLeadBody, expectRpcError } from '../helpers/rpc-edge-fixtures';

/**
 * The order of checks (issue 2): body over the limit (413) -> authentication (401) -> tier (403)
 * -> procedure exists (404) -> method (405) -> content type (415) / envelope (400) -> exposed (403)
 * -> scope (403) -> input valid (400) -> handler. Each test makes two adjacent checks fail at once
 * and shows that the earlier one answers.
 */

const ctx = createTestContext();
const small = createTestContext({ bodyLimit: '1kb' });
const edge = createEdgeRegistry();
const custom = createTestContext({ registry: edge.registry });
afterAll(async () => {
  await ctx.close();
  await small.close();
  await custom.close();
});

const OVERSIZED = JSON.stringify({ json: { name: 'Big', phone: '+442079460123', notes: 'x'.repeat(2048) } });

function post(app: typeof ctx.app, name: string, key: string | null, body: string, contentType = 'application/json') {
  const req = request(app).post(`/api/v1/rpc/${name}`).set('Content-Type', contentType);
  return (key === null ? req : req.set('Authorization', `Bearer ${key}`)).send(body);
}

async function leadCount(orgId: string): Promise<number> {
  const row = await ctx.db('leads').where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

describe('body over the limit (413) before authentication (401)', () => {
  it('answers 413 for an oversized body with no key', async () => {
    expectRpcError(await post(small.app, 'leads.create', null, OVERSIZED), 'PAYLOAD_TOO_LARGE', 'leads.create');
  });

  it('answers 413 for an oversized text/plain body to an unknown procedure with a malformed key', async () => {
    const res = await post(small.app, 'leads.nope', 'wsk_short', OVERSIZED, 'text/plain');
    expectRpcError(res, 'PAYLOAD_TOO_LARGE', 'leads.nope');
  });
});

describe('authentication (401) before tier (403) and everything after', () => {
  it('answers 401 (expired) for an expired key of a FREE workspace', async () => {
    const org = await createOrg(ctx.db, { tier: 'FREE' });
    const { key } = await createKey(ctx.db, org.id, { expiresAt: new Date(Date.now() - 60_000) });
    expect(expectRpcError(await rpcGet(ctx.app, 'leads.getAll', undefined, key), 'UNAUTHORIZED', 'leads.getAll').message).toMatch(/expired/);
  });

  it('answers 401 with no key on an unknown procedure', async () => {
    expectRpcError(await rpcGet(ctx.app, 'leads.nope', undefined, null), 'UNAUTHORIZED', 'leads.nope');
  });

  it('answers 401 with no key on /api/v1/rpc with no procedure name', async () => {
    expectRpcError(await request(ctx.app).get('/api/v1/rpc'), 'UNAUTHORIZED', undefined);
  });

  it('answers 401 with no key for a write sent as GET', async () => {
    expectRpcError(await rpcGet(ctx.app, 'leads.create', { name: 'x' }, null), 'UNAUTHORIZED', 'leads.create');
  });

  it('answers 401 with no key for a text/plain body with malformed JSON', async () => {
    expectRpcError(await post(ctx.app, 'leads.create', null, '{oops', 'text/plain'), 'UNAUTHORIZED', 'leads.create');
  });
});

describe('tier (403) before procedure lookup (404)', () => {
  it('answers 403 naming the BUSINESS tier for a FREE workspace calling an unknown procedure', async () => {
    const ws = await createWorkspace(ctx.db, { tier: 'FREE' });
    const res = await rpcGet(ctx.app, 'leads.nope', undefined, ws.key);
    expect(expectRpcError(res, 'FORBIDDEN', 'leads.nope').message).toMatch(/BUSINESS tier/);
  });

  it('answers 403 tier for a PRO workspace sending a read as POST', async () => {
    const ws = await createWorkspace(ctx.db, { tier: 'PRO' });
    const res = await rpcPost(ctx.app, 'leads.getAll', {}, ws.key);
    expect(expectRpcError(res, 'FORBIDDEN', 'leads.getAll').message).toMatch(/BUSINESS tier/);
  });

  it('answers 403 tier for a FREE workspace sending ?batch=1', async () => {
    const ws = await createWorkspace(ctx.db, { tier: 'FREE' });
    const res = await request(ctx.app).get('/api/v1/rpc/leads.getAll?batch=1').set('Authorization', `Bearer ${ws.key}`);
    expect(expectRpcError(res, 'FORBIDDEN', 'leads.getAll').message).toMatch(/BUSINESS tier/);
  });

  it('answers 400 batching (not 404) for the comma-joined path httpBatchLink sends', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app).get('/api/v1/rpc/leads.getAll,leads.getById?batch=1').set('Authorization', `Bearer ${ws.key}`);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.getAll,leads.getById').message).toMatch(/httpLink/);
  });
});

describe('procedure exists (404) before method (405)', () => {
  it.each(['DELETE', 'PUT', 'PATCH'] as const)('answers 404 for an unknown procedure sent as %s', async (method) => {
    const ws = await createWorkspace(ctx.db);
    const verb = method.toLowerCase() as 'delete' | 'put' | 'patch';
    const res = await request(ctx.app)[verb]('/api/v1/rpc/leads.nope').set('Authorization', `Bearer ${ws.key}`);
    expectRpcError(res, 'NOT_FOUND', 'leads.nope');
  });

  it('answers 405 (not 404) for a known procedure sent as DELETE', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app).delete('/api/v1/rpc/leads.getAll').set('Authorization', `Bearer ${ws.key}`);
    expectRpcError(res, 'METHOD_NOT_SUPPORTED', 'leads.getAll');
  });
});

describe('method (405) before content type (415) and envelope (400)', () => {
  it('answers 405 for a read sent as a text/plain POST', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcError(await post(ctx.app, 'leads.getAll', ws.key, 'hello', 'text/plain'), 'METHOD_NOT_SUPPORTED', 'leads.getAll');
  });

  it('answers 405 for a read sent as a POST with malformed JSON', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcError(await post(ctx.app, 'leads.getAll', ws.key, '{oops'), 'METHOD_NOT_SUPPORTED', 'leads.getAll');
  });

  it('answers 405 for a write sent as GET with a malformed input parameter', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app).get('/api/v1/rpc/leads.create?input=%7Boops').set('Authorization', `Bearer ${ws.key}`);
    expectRpcError(res, 'METHOD_NOT_SUPPORTED', 'leads.create');
  });
});

describe('content type (415) and envelope (400) before exposed (403)', () => {
  it('answers 415 for a text/plain POST to a procedure not exposed to the API', async () => {
    const ws = await createWorkspace(custom.db);
    expectRpcError(await post(custom.app, 'edge.hiddenWrite', ws.key, '{"json":{"id":"x"}}', 'text/plain'), 'UNSUPPORTED_MEDIA_TYPE', 'edge.hiddenWrite');
  });

  it('answers 415 (not 400) for a text/plain body of malformed JSON', async () => {
    const ws = await createWorkspace(custom.db);
    expectRpcError(await post(custom.app, 'edge.hiddenWrite', ws.key, '{oops', 'text/plain'), 'UNSUPPORTED_MEDIA_TYPE', 'edge.hiddenWrite');
  });

  it('answers 400 for a malformed envelope POSTed to a procedure not exposed to the API', async () => {
    const ws = await createWorkspace(custom.db);
    const res = await post(custom.app, 'edge.hiddenWrite', ws.key, '{"id":"x"}');
    expect(expectRpcError(res, 'BAD_REQUEST', 'edge.hiddenWrite').message).toMatch(/Missing envelope/);
  });

  it('answers 400 for malformed JSON in the input parameter of a read not exposed to the API', async () => {
    const ws = await createWorkspace(custom.db);
    const res = await request(custom.app).get('/api/v1/rpc/edge.hiddenRead?input=%7Boops').set('Authorization', `Bearer ${ws.key}`);
    expect(expectRpcError(res, 'BAD_REQUEST', 'edge.hiddenRead').message).toMatch(/Malformed JSON/);
  });
});

describe('exposed (403) before scope (403)', () => {
  it('answers 403 not exposed (not missing scope) to a key lacking the procedure scope', async () => {
    const org = await createOrg(custom.db);
    const { key } = await createKey(custom.db, org.id, { scopes: ['leads.create'] });
    const before = edge.calls.hiddenWrite;
    const res = await post(custom.app, 'edge.hiddenWrite', key, '{"json":{"id":"x"}}');
    expect(expectRpcError(res, 'FORBIDDEN', 'edge.hiddenWrite').message).toBe('edge.hiddenWrite is not exposed to the API');
    expect(edge.calls.hiddenWrite).toBe(before);
  });
});

describe('scope (403) before input validation (400)', () => {
  it('answers 403 "missing scope: leads.create" for invalid input from a key lacking the scope', async () => {
    const org = await createOrg(ctx.db);
    const { key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
    const res = await rpcPost(ctx.app, 'leads.create', { name: '', phone: 42, unexpected: true }, key);
    expect(expectRpcError(res, 'FORBIDDEN', 'leads.create').message).toContain('missing scope: leads.create');
    expect(await leadCount(org.id)).toBe(0);
  });

  it('answers 400 for the same invalid input from a key that has the scope', async () => {
    const org = await createOrg(ctx.db);
    const { key } = await createKey(ctx.db, org.id, { scopes: ['leads.create'] });
    const res = await rpcPost(ctx.app, 'leads.create', { name: '', phone: 42, unexpected: true }, key);
    const error = expectRpcError(res, 'BAD_REQUEST', 'leads.create');
    expect(error.data.issues?.map((i) => i.path)).toEqual(expect.arrayContaining([['name'], ['phone']]));
    expect(await leadCount(org.id)).toBe(0);
  });
});

describe('input validation (400) before the handler', () => {
  it('answers 400 and never runs the handler when the input is invalid', async () => {
    const ws = await createWorkspace(custom.db);
    const before = edge.calls.echo;
    const res = await rpcPost(custom.app, 'edge.echo', { at: 'not a Date', count: 1.5 }, ws.key);
    const error = expectRpcError(res, 'BAD_REQUEST', 'edge.echo');
    expect(error.data.issues?.map((i) => i.path)).toEqual([['at'], ['count']]);
    expect(edge.calls.echo).toBe(before);
  });

  it('checks an input whose schema refines asynchronously: 400 when refused, the handler once when accepted', async () => {
    const ws = await createWorkspace(custom.db);
    const before = edge.calls.asyncCheck;
    const refused = await rpcPost(custom.app, 'edge.asyncCheck', { name: 'taken' }, ws.key);
    expect(expectRpcError(refused, 'BAD_REQUEST', 'edge.asyncCheck').data.issues).toEqual([{ path: ['name'], message: 'that name is taken' }]);
    expect(edge.calls.asyncCheck).toBe(before);
    const accepted = await rpcPost(custom.app, 'edge.asyncCheck', { name: 'free' }, ws.key);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ result: { data: { json: { name: 'free' } } } });
    expect(edge.calls.asyncCheck).toBe(before + 1);
  });

  it('runs the handler once when every check passes', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await post(ctx.app, 'leads.create', ws.key, createLeadBody(unique('Ok')));
    expect(res.status).toBe(200);
    expect(await leadCount(ws.org.id)).toBe(1);
  });
});

describe('body reading errors other than size wait until after authentication', () => {
  const body = JSON.stringify({ json: { name: 'Ada', phone: '+442079460123' } });

  it('answers 401, not 415, for an unsupported Content-Encoding with no key', async () => {
    const res = await request(ctx.app).post('/api/v1/rpc/leads.create').set('Content-Type', 'application/json').set('Content-Encoding', 'compress').send(body);
    expectRpcError(res, 'UNAUTHORIZED', 'leads.create');
  });

  it('answers 401, not 400, for a gzip Content-Encoding on a body that is not gzip, with no key', async () => {
    const res = await request(ctx.app).post('/api/v1/rpc/leads.create').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send(body);
    expectRpcError(res, 'UNAUTHORIZED', 'leads.create');
  });

  it('answers 415 for an unsupported Content-Encoding with a valid key, and writes nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app).post('/api/v1/rpc/leads.create').set('Content-Type', 'application/json').set('Content-Encoding', 'compress').set('Authorization', `Bearer ${ws.key}`).send(body);
    expectRpcError(res, 'UNSUPPORTED_MEDIA_TYPE', 'leads.create');
    expect(await leadCount(ws.org.id)).toBe(0);
  });
});

describe('paths are case-sensitive', () => {
  it('answers an upper-case action path with the REST 404, not an empty procedure name', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app).get('/API/V1/RPC/leads.getAll').set('Authorization', `Bearer ${ws.key}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringMatching(/No route/) } });
  });
});
