import type { ClientRequest } from 'node:http';
import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost } from '../helpers/rpc';
import { createEdgeRegistry, createLeadBody, expectRpcError } from '../helpers/rpc-edge-fixtures';

const ctx = createTestContext();
const small = createTestContext({ bodyLimit: '1kb' });
const edge = createEdgeRegistry();
const custom = createTestContext({ registry: edge.registry });
afterAll(async () => {
  await ctx.close();
  await small.close();
  await custom.close();
});

async function leadCount(orgId: string): Promise<number> {
  const row = await ctx.db('leads').where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

function postRaw(app: typeof ctx.app, name: string, key: string, body: string, contentType = 'application/json') {
  return request(app).post(`/api/v1/rpc/${name}`).set('Authorization', `Bearer ${key}`).set('Content-Type', contentType).send(body);
}

function getRaw(app: typeof ctx.app, pathAndQuery: string, key: string) {
  return request(app).get(pathAndQuery).set('Authorization', `Bearer ${key}`);
}

describe('POST leads.create: 400 BAD_REQUEST', () => {
  it('answers 400 for malformed JSON in the body, and stores nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await postRaw(ctx.app, 'leads.create', ws.key, '{"json": {"name": "x",');
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.create').message).toMatch(/^Malformed JSON/);
    expect(await leadCount(ws.org.id)).toBe(0);
  });

  it('answers 400 for a raw input object without the {"json": ...} envelope', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await postRaw(ctx.app, 'leads.create', ws.key, JSON.stringify({ name: unique('Raw'), phone: '+442079460123' }));
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.create').message).toMatch(/Missing envelope.*\{"json": <input>\}/);
    expect(await leadCount(ws.org.id)).toBe(0);
  });

  it.each([
    ['a JSON array', '[{"json":{}}]'],
    ['a JSON string', '"hello"'],
    ['JSON null', 'null'],
  ])('answers 400 Missing envelope for %s as the body', async (_label, body) => {
    const ws = await createWorkspace(ctx.db);
    const res = await postRaw(ctx.app, 'leads.create', ws.key, body);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.create').message).toMatch(/^Missing envelope/);
  });

  it('answers 400 for an empty JSON body', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await postRaw(ctx.app, 'leads.create', ws.key, '');
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.create').message).toMatch(/Missing body/);
  });

  it.each([
    ['a string', '"Date"'],
    ['null', 'null'],
    ['an array', '["Date"]'],
  ])('answers 400 when "meta" is %s rather than an object', async (_label, meta) => {
    const ws = await createWorkspace(ctx.db);
    const res = await postRaw(ctx.app, 'leads.create', ws.key, `{"json":{"name":"${unique('M')}","phone":"+442079460123"},"meta":${meta}}`);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.create').message).toBe('Malformed envelope: "meta" must be an object');
    expect(await leadCount(ws.org.id)).toBe(0);
  });

  it('answers 400 when "meta" names an unknown superjson transformation', async () => {
    const ws = await createWorkspace(ctx.db);
    const body = JSON.stringify({ json: { name: unique('T'), phone: '+442079460123' }, meta: { values: { name: ['bogus'] } } });
    const res = await postRaw(ctx.app, 'leads.create', ws.key, body);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.create').message).toMatch(/"meta" does not describe "json"/);
  });

  it('answers 400 with field issues and a readable message when the input fails validation, and stores nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcPost(ctx.app, 'leads.create', { name: '   ', email: 'not-an-email' }, ws.key);
    const error = expectRpcError(res, 'BAD_REQUEST', 'leads.create');
    expect(error.data.issues).toEqual([
      { path: ['name'], message: 'expected non-blank text of at most 200 characters, got empty text' },
      { path: ['phone'], message: expect.stringMatching(/^expected a phone number in E\.164, .*; the field is required$/) },
      { path: ['email'], message: 'expected an email address, e.g. ana@example.com, got "not-an-email"' },
    ]);
    expect(error.message).toMatch(/^Invalid input: name: expected non-blank text of at most 200 characters, got empty text; phone: .+; email: expected an email address, e\.g\. ana@example\.com, got "not-an-email"$/);
    expect(error.message).not.toMatch(/[{}]|"path"|"code"/);
    expect(await leadCount(ws.org.id)).toBe(0);
  });

  it('gives a nested field issue its full path, e.g. ["phones", 1]', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcPost(ctx.app, 'leads.create', { name: unique('P'), phone: '+442079460123', phones: ['+442079460124', 42] }, ws.key);
    const error = expectRpcError(res, 'BAD_REQUEST', 'leads.create');
    expect(error.data.issues).toEqual([{ path: ['phones', 1], message: expect.any(String) }]);
    expect(error.message).toMatch(/^Invalid input: phones\[1\]: /);
  });
});

describe('GET leads.getById: 400 BAD_REQUEST', () => {
  it('answers 400 for malformed JSON in the input parameter', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await getRaw(ctx.app, `/api/v1/rpc/leads.getById?input=${encodeURIComponent('{"json":{"id":')}`, ws.key);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.getById').message).toMatch(/^Malformed JSON/);
  });

  it('answers 400 for an input parameter without the envelope', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await getRaw(ctx.app, `/api/v1/rpc/leads.getById?input=${encodeURIComponent('{"id":"lead_1"}')}`, ws.key);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.getById').message).toMatch(/^Missing envelope/);
  });

  it('answers 400 for "meta" that is not an object in the input parameter', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await getRaw(ctx.app, `/api/v1/rpc/leads.getById?input=${encodeURIComponent('{"json":{"id":"x"},"meta":7}')}`, ws.key);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.getById').message).toMatch(/"meta" must be an object/);
  });

  it('answers 400 when the input parameter is given twice', async () => {
    const ws = await createWorkspace(ctx.db);
    const one = encodeURIComponent('{"json":{"id":"a"}}');
    const res = await getRaw(ctx.app, `/api/v1/rpc/leads.getById?input=${one}&input=${one}`, ws.key);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.getById').message).toMatch(/"input" query parameter once/);
  });

  it('answers 400 naming httpLink for ?batch=1', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await getRaw(ctx.app, `/api/v1/rpc/leads.getAll?batch=1&input=${encodeURIComponent('{"0":{"json":null}}')}`, ws.key);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.getAll').message).toMatch(/[Bb]atching is not supported.*httpLink/);
  });

  it('answers 400 naming httpLink for a batched POST as httpBatchLink sends it', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await postRaw(ctx.app, 'leads.create,leads.create?batch=1', ws.key, JSON.stringify({ 0: { json: {} }, 1: { json: {} } }));
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.create,leads.create').message).toMatch(/httpLink/);
    expect(await leadCount(ws.org.id)).toBe(0);
  });
});

describe('404 NOT_FOUND', () => {
  it('answers 404 naming an unknown procedure', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'leads.nope', undefined, ws.key);
    expect(expectRpcError(res, 'NOT_FOUND', 'leads.nope').message).toBe('No procedure named "leads.nope"');
  });

  it('answers 404 without data.path for /api/v1/rpc with no procedure name', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await getRaw(ctx.app, '/api/v1/rpc', ws.key);
    expect(expectRpcError(res, 'NOT_FOUND', undefined).message).toMatch(/No procedure named ""/);
  });
});

describe('405 METHOD_NOT_SUPPORTED', () => {
  it('answers 405 for a POST to a read (leads.getAll)', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcPost(ctx.app, 'leads.getAll', {}, ws.key);
    expect(expectRpcError(res, 'METHOD_NOT_SUPPORTED', 'leads.getAll').message).toBe('leads.getAll is a read: use GET');
  });

  it('answers 405 for a GET to a write (leads.create), and stores nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'leads.create', { name: unique('G'), phone: '+442079460123' }, ws.key);
    expect(expectRpcError(res, 'METHOD_NOT_SUPPORTED', 'leads.create').message).toBe('leads.create is a write: use POST');
    expect(await leadCount(ws.org.id)).toBe(0);
  });
});

describe('413 PAYLOAD_TOO_LARGE', () => {
  it('answers 413 in the envelope for a 2kb body over a 1kb limit, and stores nothing', async () => {
    const ws = await createWorkspace(small.db);
    const body = JSON.stringify({ json: { name: unique('Big'), phone: '+442079460123', notes: 'x'.repeat(2048) } });
    const res = await postRaw(small.app, 'leads.create', ws.key, body);
    expect(expectRpcError(res, 'PAYLOAD_TOO_LARGE', 'leads.create').message).toMatch(/larger than the limit/);
    expect(await leadCount(ws.org.id)).toBe(0);
  });

  it('accepts the same call under the limit', async () => {
    const ws = await createWorkspace(small.db);
    const res = await postRaw(small.app, 'leads.create', ws.key, createLeadBody(unique('Small')));
    expect(res.status).toBe(200);
    expect(await leadCount(ws.org.id)).toBe(1);
  });
});

describe('415 UNSUPPORTED_MEDIA_TYPE', () => {
  it('answers 415 for a text/plain POST carrying valid JSON, and stores nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await postRaw(ctx.app, 'leads.create', ws.key, createLeadBody(unique('Txt')), 'text/plain');
    expect(expectRpcError(res, 'UNSUPPORTED_MEDIA_TYPE', 'leads.create').message).toMatch(/Content-Type: application\/json/);
    expect(await leadCount(ws.org.id)).toBe(0);
  });

  it('answers 415 for a POST without a Content-Type header', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app)
      .post('/api/v1/rpc/leads.create')
      .set('Authorization', `Bearer ${ws.key}`)
      .send(Buffer.from(createLeadBody(unique('None'))));
    // supertest sends a Buffer as it is, without choosing a content type
    expect((res as unknown as { req: ClientRequest }).req.getHeader('content-type')).toBeUndefined();
    expectRpcError(res, 'UNSUPPORTED_MEDIA_TYPE', 'leads.create');
    expect(await leadCount(ws.org.id)).toBe(0);
  });

  it('answers 415 for application/x-www-form-urlencoded', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await postRaw(ctx.app, 'leads.create', ws.key, 'json=1', 'application/x-www-form-urlencoded');
    expectRpcError(res, 'UNSUPPORTED_MEDIA_TYPE', 'leads.create');
  });

  it('accepts application/json; charset=utf-8', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await postRaw(ctx.app, 'leads.create', ws.key, createLeadBody(unique('Utf')), 'application/json; charset=utf-8');
    expect(res.status).toBe(200);
    expect(await leadCount(ws.org.id)).toBe(1);
  });
});

describe('500 INTERNAL_SERVER_ERROR', () => {
  it('answers a generic 500 without the thrown message or a stack when a handler fails', async () => {
    const ws = await createWorkspace(custom.db);
    const before = edge.calls.explode;
    const res = await rpcGet(custom.app, 'edge.explode', undefined, ws.key);
    expect(edge.calls.explode).toBe(before + 1);
    const error = expectRpcError(res, 'INTERNAL_SERVER_ERROR', 'edge.explode');
    expect(error.message).toBe('An unexpected error occurred');
    expect(Object.keys(error.data).sort()).toEqual(['code', 'httpStatus', 'path']);
    expect(res.text).not.toMatch(/secret SQL detail|api_keys|select \*/);
    expect(res.text).not.toMatch(/stack|\bat .+\.(ts|js):\d+/);
  });
});
