import type { Server } from 'node:http';
import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { createHttpServer } from '../../src/server/http-server';

/**
 * RFC 9110 §15.5.6: a 405 must carry `Allow`, the methods the path does serve. Walks every route
 * of the app with methods it does not serve, through the server index.ts listens with.
 */
const ctx = createTestContext();
let server: Server;
let key: string;
let session: string;

beforeAll(async () => {
  server = createHttpServer(ctx.app);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const ws = await createWorkspace(ctx.db);
  key = ws.key;
  session = signMemberSession(testJwtKeys.session, { memberId: ws.member.id, orgId: ws.org.id }).token;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await ctx.close();
});

type Method = 'post' | 'put' | 'patch' | 'delete' | 'get' | 'head' | 'trace';
function send(method: Method, path: string, auth?: string) {
  const req = request(server)[method](path);
  return auth ? req.set('Authorization', `Bearer ${auth}`) : req;
}

describe('the REST leads routes with another method', () => {
  it.each(['put', 'patch', 'delete', 'trace'] as const)('answers %s on /api/v1/leads with 405, Allow: GET, HEAD, POST and the REST error body', async (method) => {
    const res = await send(method, '/api/v1/leads', key);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ error: { code: 'METHOD_NOT_SUPPORTED', message: `${method.toUpperCase()} is not supported on /api/v1/leads: use GET, HEAD or POST` } });
  });

  it.each(['post', 'put', 'trace'] as const)('answers %s on /api/v1/leads/{id} with 405, Allow: GET, HEAD, PATCH, DELETE', async (method) => {
    const res = await send(method, '/api/v1/leads/lead_x', key);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
    expect(res.body.error.code).toBe('METHOD_NOT_SUPPORTED');
  });

  it('answers 405 before authentication: the methods of a public path are no secret', async () => {
    const res = await send('put', '/api/v1/leads');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });

  it('answers the path with a trailing slash the same way, as Express routes it', async () => {
    const res = await send('put', '/api/v1/leads/', key);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });

  it('serves HEAD, which Allow names: a keyless HEAD is the 401 a GET gets', async () => {
    const res = await send('head', '/api/v1/leads');
    expect(res.status).toBe(401);
  });

  it('still answers 404 for a path no route serves', async () => {
    const res = await send('post', '/api/v1/leads/nothing/here', key);
    expect(res.status).toBe(404);
    expect(res.headers.allow).toBeUndefined();
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});

describe('action endpoints called with the wrong method', () => {
  it('answers a query sent with POST 405 with Allow: GET, in the RPC envelope', async () => {
    const res = await request(server).post('/api/v1/rpc/leads.getAll').set('Authorization', `Bearer ${key}`).send({ json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
    expect(res.body.error.json).toMatchObject({ code: -32005, data: { code: 'METHOD_NOT_SUPPORTED', httpStatus: 405, path: 'leads.getAll' } });
  });

  it('answers a mutation sent with GET 405 with Allow: POST', async () => {
    const res = await send('get', '/api/v1/rpc/leads.create', key);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body.error.json.data.code).toBe('METHOD_NOT_SUPPORTED');
  });

  it('answers HEAD on a query 405 with Allow: GET (queries are served to GET only)', async () => {
    const res = await send('head', '/api/v1/rpc/leads.getAll', key);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET');
  });

  it.each(['put', 'patch', 'delete'] as const)('answers %s on a mutation 405 with Allow: POST', async (method) => {
    const res = await send(method, '/api/v1/rpc/leads.create', key);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});

describe('every other route', () => {
  const getRoutes = ['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json', '/docs', '/docs/assets/docs.js', '/developer', '/developer/assets/developer.js'];

  it.each(getRoutes)('answers POST %s with 405 and Allow: GET, HEAD', async (path) => {
    const res = await send('post', path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.body.error.code).toBe('METHOD_NOT_SUPPORTED');
  });

  it('answers GET /api/v1/playground/token with 405 and Allow: POST', async () => {
    const res = await send('get', '/api/v1/playground/token');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });

  it('answers DELETE /developer/api/keys with 405 naming both methods of the path, once the session is checked', async () => {
    expect((await send('delete', '/developer/api/keys')).status).toBe(401);
    const res = await send('delete', '/developer/api/keys', session);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
  });

  it('answers GET on a route with a parameter (/developer/api/keys/:id/revoke) with Allow: POST', async () => {
    const res = await send('get', '/developer/api/keys/abc/revoke', session);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});

describe('any 405', () => {
  const paths = ['/api/v1/leads', '/api/v1/rpc/leads.getAll', '/api/v1/rpc/leads.create', '/healthz', '/readyz', '/metrics', '/api/v1/openapi.json',
    '/api/v1/playground/token', '/docs', '/developer', '/developer/api/me', '/developer/api/keys', '/developer/api/procedures', '/no/such/path'];
  const methods: Method[] = ['get', 'head', 'post', 'put', 'patch', 'delete', 'trace'];

  it('carries a non-empty Allow that never names the method refused', async () => {
    const refused: string[] = [];
    for (const path of paths) {
      for (const method of methods) {
        const res = await send(method, path, path.startsWith('/developer/api') ? session : key);
        if (res.status !== 405) continue;
        refused.push(`${method} ${path}`);
        const allow = String(res.headers.allow ?? '').split(', ').filter(Boolean);
        expect({ method, path, allowNames: allow.length > 0, namesRefused: allow.includes(method.toUpperCase()) })
          .toEqual({ method, path, allowNames: true, namesRefused: false });
      }
    }
    expect(refused.length).toBeGreaterThan(40);
  });
});
