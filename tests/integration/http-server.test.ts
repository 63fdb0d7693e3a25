import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { sendRaw } from '../helpers/raw-socket';
import { createHttpServer, DEFAULT_TIMEOUTS } from '../../src/server/http-server';

/**
 * The server index.ts listens with builds each request and response on the app's own prototypes,
 * so Express's per-request Object.setPrototypeOf changes nothing (docs/performance.md, "Requests
 * born on Express's prototypes"), and the app answers through it exactly as through supertest's server.
 */
const ctx = createTestContext();
let server: Server;
const bornOnAppPrototypes: boolean[] = [];

beforeAll(async () => {
  server = createHttpServer(ctx.app);
  // Runs before the app's own listener, so it sees the objects as Node made them.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    bornOnAppPrototypes.push(Object.getPrototypeOf(req) === ctx.app.request && Object.getPrototypeOf(res) === ctx.app.response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await ctx.close();
});

describe('the service HTTP server', () => {
  it('builds every request and response on the app\'s prototypes, still Node\'s IncomingMessage and ServerResponse', async () => {
    bornOnAppPrototypes.length = 0;
    let seen: { req: boolean; res: boolean } | undefined;
    server.prependOnceListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen = { req: req instanceof IncomingMessage, res: res instanceof ServerResponse };
    });

    await request(server).get('/healthz').expect(200);
    await request(server).get('/no/such/route');

    expect(bornOnAppPrototypes).toEqual([true, true]);
    expect(seen).toEqual({ req: true, res: true });
  });

  it('answers a keyed call, its errors and the REST list through it as the app does', async () => {
    const ws = await createWorkspace(ctx.db);
    const auth = { Authorization: `Bearer ${ws.key}` };

    const created = await request(server).post('/api/v1/rpc/leads.create').set(auth).send({ json: { name: 'Born On', phone: '+442079460019' } });
    expect(created.status).toBe(200);
    const id = created.body.result.data.json.id as string;
    const read = await request(server).get('/api/v1/rpc/leads.getById').query({ input: JSON.stringify({ json: { id } }) }).set(auth);
    expect(read.status).toBe(200);
    expect(read.body.result.data.json).toMatchObject({ id, name: 'Born On', primaryPhone: '+442079460019' });
    expect(read.headers['x-request-id']).toEqual(expect.any(String));
    expect(read.headers['x-content-type-options']).toBe('nosniff');

    const list = await request(server).get('/api/v1/leads').query({ pageSize: 5 }).set(auth);
    expect(list.status).toBe(200);
    expect(list.body.pagination).toMatchObject({ total: 1, pageSize: 5 });

    const unauthenticated = await request(server).get('/api/v1/rpc/leads.getById').query({ input: JSON.stringify({ json: { id } }) });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body.error.json.data.code).toBe('UNAUTHORIZED');
  });

  it("sets its own timeouts for slow clients rather than Node's 60 s and 300 s", () => {
    expect({ headersTimeout: server.headersTimeout, requestTimeout: server.requestTimeout, keepAliveTimeout: server.keepAliveTimeout, timeout: server.timeout })
      .toEqual({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, timeout: 0 });
    expect(DEFAULT_TIMEOUTS.connectionsCheckingInterval).toBe(1_000);
  });

  it('takes smaller timeouts from its caller (tests)', async () => {
    const small = createHttpServer(ctx.app, { headersTimeout: 500, requestTimeout: 1000, keepAliveTimeout: 200, connectionsCheckingInterval: 50 });
    try {
      expect({ headersTimeout: small.headersTimeout, requestTimeout: small.requestTimeout, keepAliveTimeout: small.keepAliveTimeout })
        .toEqual({ headersTimeout: 500, requestTimeout: 1000, keepAliveTimeout: 200 });
    } finally {
      small.close();
    }
  });

  it('answers what the HTTP parser refuses in JSON, not with a bare status line', async () => {
    const res = await sendRaw(server, 'GET /api/v1/leads HTTP/1.1\r\nHost: test\r\nNot a header\r\n\r\n');
    expect({ status: res.status, connection: res.headers.connection, body: JSON.parse(res.body || 'null') })
      .toEqual({ status: 400, connection: 'close', body: { error: { code: 'BAD_REQUEST', message: 'Malformed HTTP request: Invalid header token' } } });
  });
});
