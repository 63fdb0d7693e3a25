import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import request from 'supertest';
import superjson from 'superjson';
import { createTRPCUntypedClient, httpLink } from '@trpc/client';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost } from '../helpers/rpc';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';

/**
 * CORS (issue 7): browsers of any origin may call the public API (action endpoints, the REST
 * list, openapi.json) without credentials; the developer page and its session routes get no CORS.
 * The expected values are written out here rather than imported from src/http/cors.ts, so the test
 * checks the contract, not the module against itself.
 */

const ctx = createTestContext();
afterAll(() => ctx.close());

const ORIGIN = 'https://integrator.example';
const ALLOWED_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'if-match', 'if-none-match', 'last-event-id', 'x-request-id', 'trpc-accept'];
const EXPOSED_HEADERS = ['ratelimit', 'ratelimit-policy', 'retry-after', 'idempotent-replayed', 'x-request-id', 'deprecation', 'sunset', 'link', 'etag', 'location'];
/** Request headers browsers send without asking (the CORS-safelisted ones, plus what fetch adds itself). */
const NEED_NO_PREFLIGHT = new Set(['accept', 'accept-language', 'content-language']);

function listOf(header: string | undefined): string[] {
  return (header ?? '').split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
}

function preflight(path: string, method = 'POST', headers = 'authorization,content-type,idempotency-key') {
  return request(ctx.app).options(path).set('Origin', ORIGIN).set('Access-Control-Request-Method', method).set('Access-Control-Request-Headers', headers);
}

function expectNoCors(res: { headers: Record<string, unknown> }): void {
  for (const name of Object.keys(res.headers)) expect(name).not.toMatch(/^access-control-/);
}

async function leadCount(orgId: string): Promise<number> {
  const row = await ctx.db('leads').where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

describe('preflight (OPTIONS) on the public API', () => {
  it.each([
    ['/api/v1/rpc/leads.create', 'POST'],
    ['/api/v1/rpc/leads.getAll', 'GET'],
    ['/api/v1/leads', 'GET'],
    ['/api/v1/leads', 'POST'],
    ['/api/v1/leads/lead_3kTMd9VbX2qLr7NwY5pHcZ', 'PATCH'],
    ['/api/v1/leads/lead_3kTMd9VbX2qLr7NwY5pHcZ', 'DELETE'],
    ['/api/v1/openapi.json', 'GET'],
    ['/api/v1/rpc/events.onEvent', 'GET'],
    ['/api/v1/stream-tokens', 'POST'],
  ])('answers 204 for %s (%s) with any origin, the API methods and headers and a max-age, without credentials', async (path, method) => {
    const res = await preflight(path, method);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(listOf(res.headers['access-control-allow-methods']).sort()).toEqual(['delete', 'get', 'patch', 'post']);
    expect(listOf(res.headers['access-control-allow-headers']).sort()).toEqual([...ALLOWED_HEADERS].sort());
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThanOrEqual(600);
    expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
  });

  it('is answered before authentication and never runs the procedure (no key, no body)', async () => {
    const ws = await createWorkspace(ctx.db);
    const before = await leadCount(ws.org.id);
    const res = await preflight('/api/v1/rpc/leads.create');
    expect(res.status).toBe(204);
    expect(res.headers).not.toHaveProperty('www-authenticate');
    expect(await leadCount(ws.org.id)).toBe(before);
  });
});

describe('answers of the public API to a cross-origin call', () => {
  it('a read carries Allow-Origin *, the exposed headers, CORP cross-origin and no Allow-Credentials', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'leads.getAll', {}, ws.key).set('Origin', ORIGIN);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(listOf(res.headers['access-control-expose-headers']).sort()).toEqual([...EXPOSED_HEADERS].sort());
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
    // One answer for every origin: cacheable, nothing varies by Origin.
    expect(res.headers.vary ?? '').not.toMatch(/origin/i);
  });

  it('a write carries the same headers and does act once', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcPost(ctx.app, 'leads.create', { name: unique('Cors'), phone: '+442079460018' }, ws.key).set('Origin', ORIGIN);
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
    expect(await leadCount(ws.org.id)).toBe(1);
  });

  it('an error answer (401) carries them too, so a page can read why it was refused', async () => {
    const res = await request(ctx.app).get('/api/v1/rpc/leads.getAll').set('Origin', ORIGIN);
    expect(res.status).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('the REST list and openapi.json carry them', async () => {
    const ws = await createWorkspace(ctx.db);
    for (const res of [
      await request(ctx.app).get('/api/v1/leads').set('Origin', ORIGIN).set('Authorization', `Bearer ${ws.key}`),
      await request(ctx.app).get('/api/v1/openapi.json').set('Origin', ORIGIN),
    ]) {
      expect(res.status).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
    }
  });

  it('a cross-origin call carrying the valid key only in a cookie is 401 and gets no Allow-Credentials', async () => {
    // (Cookies are never read: rpc-edge-auth.test.ts; this is the browser's side of it.)
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app).get('/api/v1/rpc/leads.getAll').set('Origin', ORIGIN).set('Cookie', `session=${ws.key}`);
    expect(res.status).toBe(401);
    expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
    expect(res.headers).not.toHaveProperty('set-cookie');
  });
});

describe('routes that are not the public API get no CORS', () => {
  const session = () => createWorkspace(ctx.db).then((ws) => ({ ws, token: signMemberSession(testJwtKeys.session, { memberId: ws.member.id, orgId: ws.org.id }).token }));

  it.each(['/developer', '/developer/api/keys', '/api/v1/playground/token', '/healthz', '/docs'])('a preflight to %s is not answered with CORS headers', async (path) => {
    const res = await preflight(path, 'POST', 'authorization,content-type');
    expect(res.status).not.toBe(204);
    expectNoCors(res);
  });

  it('the developer page, its key listing and the playground token answer without CORS and keep CORP same-origin', async () => {
    const { token } = await session();
    const page = await request(ctx.app).get('/developer').set('Origin', ORIGIN);
    const keys = await request(ctx.app).get('/developer/api/keys').set('Origin', ORIGIN).set('Authorization', `Bearer ${token}`);
    const playground = await request(ctx.app)
      .post('/api/v1/playground/token').set('Origin', ORIGIN).set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json').send('{}');
    expect([page.status, keys.status, playground.status]).toEqual([200, 200, 200]);
    for (const res of [page, keys, playground]) {
      expectNoCors(res);
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
    }
  });

  it('neither do paths that only look like the API (another case, another prefix)', async () => {
    for (const path of ['/API/V1/RPC/leads.getAll', '/api/v1/leadsx', '/api/v2/rpc/leads.getAll']) {
      expectNoCors(await request(ctx.app).get(path).set('Origin', ORIGIN));
    }
  });
});

describe('the official tRPC client (httpLink)', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = ctx.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends no request header that the preflight does not allow, for a query and a mutation', async () => {
    const ws = await createWorkspace(ctx.db);
    const sent: string[][] = [];
    const client = createTRPCUntypedClient({
      links: [
        httpLink({
          url: `http://127.0.0.1:${port}/api/v1/rpc`,
          transformer: superjson,
          headers: { Authorization: `Bearer ${ws.key}` },
          fetch: async (url, init) => {
            sent.push(Object.keys((init?.headers ?? {}) as Record<string, string>).map((h) => h.toLowerCase()));
            const res = await fetch(url, init as RequestInit);
            const text = await res.text();
            return { ok: res.ok, status: res.status, headers: res.headers, json: async (): Promise<unknown> => JSON.parse(text) } as Response;
          },
        }),
      ],
    });
    await client.mutation('leads.create', { name: unique('Trpc'), phone: '+442079460018' });
    await client.query('leads.getAll', {});
    expect(sent).toHaveLength(2);
    expect(sent.flat()).toContain('content-type');
    for (const header of sent.flat()) {
      if (!NEED_NO_PREFLIGHT.has(header)) expect(ALLOWED_HEADERS).toContain(header);
    }
  });
});
