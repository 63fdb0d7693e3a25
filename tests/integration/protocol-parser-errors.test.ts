import type { Server } from 'node:http';
import { Socket } from 'node:net';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { sendRaw, type RawExchange } from '../helpers/raw-socket';
import { createHttpServer, MAX_HEADER_SIZE } from '../../src/server/http-server';

/**
 * Requests Node's HTTP parser refuses before the app sees them are answered in JSON, with
 * `Connection: close`, and the connection is closed. The envelope follows the request line's
 * path when the parser still holds it (the RPC envelope under /api/v1/rpc/), else the REST body.
 */
const ctx = createTestContext();
let server: Server;
let key: string;

beforeAll(async () => {
  server = createHttpServer(ctx.app);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  key = (await createWorkspace(ctx.db)).key;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await ctx.close();
});

function expectClosingJson(res: RawExchange, status: number): unknown {
  expect({ status: res.status, closedByServer: res.closedByServer }).toEqual({ status, closedByServer: true });
  expect(res.headers.connection).toBe('close');
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  return JSON.parse(res.body);
}

describe('a GET whose input is many times the limit (100 KB)', () => {
  it('reaches the dispatcher on an action endpoint: 400 in the RPC envelope naming the procedure', async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { search: 'x'.repeat(100_000) } }));
    const res = await sendRaw(server, `GET /api/v1/rpc/leads.getAll?input=${input} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(400);
    expect((JSON.parse(res.body) as { error: { json: unknown } }).error.json).toEqual({
      message: expect.stringMatching(/^The "input" query parameter is \d+ bytes long; the limit is 8192$/),
      code: -32600,
      data: { code: 'BAD_REQUEST', httpStatus: 400, path: 'leads.getAll' },
    });
  });

  it('reaches the REST list too: 400 in the REST error body', async () => {
    const res = await sendRaw(server, `GET /api/v1/leads?search=${'x'.repeat(100_000)} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(400);
    expect((JSON.parse(res.body) as { error: { code: string; issues: { path: string[] }[] } }).error).toMatchObject({ code: 'BAD_REQUEST', issues: [{ path: ['search'] }] });
  });
});

describe(`a request line and headers over ${MAX_HEADER_SIZE} bytes`, () => {
  it('answers 431 in JSON (the REST body: the parser no longer holds the path) and closes the connection', async () => {
    const res = await sendRaw(server, `GET /api/v1/leads HTTP/1.1\r\nHost: test\r\nX-Padding: ${'p'.repeat(MAX_HEADER_SIZE + 1000)}\r\n\r\n`);
    expect(expectClosingJson(res, 431)).toEqual({
      error: { code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', message: `The request line and headers are over ${MAX_HEADER_SIZE} bytes` },
    });
  });
});

describe('a malformed request', () => {
  it('answers a bad header line on an action endpoint 400 in the RPC envelope naming the procedure', async () => {
    const res = await sendRaw(server, 'GET /api/v1/rpc/leads.getAll?input=%7B%7D HTTP/1.1\r\nHost: test\r\nNot a header\r\n\r\n');
    const body = expectClosingJson(res, 400) as { error: { json: unknown } };
    expect(body.error.json).toEqual({
      message: 'Malformed HTTP request: Invalid header token',
      code: -32600,
      data: { code: 'BAD_REQUEST', httpStatus: 400, path: 'leads.getAll' },
    });
  });

  it('answers a bad header line on the REST list 400 in the REST error body', async () => {
    const res = await sendRaw(server, 'GET /api/v1/leads HTTP/1.1\r\nHost: test\r\nNot a header\r\n\r\n');
    expect(expectClosingJson(res, 400)).toEqual({ error: { code: 'BAD_REQUEST', message: 'Malformed HTTP request: Invalid header token' } });
  });

  it('answers a method the parser does not know 400 in JSON', async () => {
    const res = await sendRaw(server, 'BREW /api/v1/leads HTTP/1.1\r\nHost: test\r\n\r\n');
    expect(expectClosingJson(res, 400)).toEqual({ error: { code: 'BAD_REQUEST', message: 'Malformed HTTP request: Invalid method encountered' } });
  });

  it('answers a bad chunk size in a body the app is reading 400 in the RPC envelope', async () => {
    const res = await sendRaw(server, `POST /api/v1/rpc/leads.create HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`);
    const body = expectClosingJson(res, 400) as { error: { json: { message: string; data: unknown } } };
    expect(body.error.json.message).toBe('Malformed HTTP request: Invalid character in chunk size');
    expect(body.error.json.data).toEqual({ code: 'BAD_REQUEST', httpStatus: 400, path: 'leads.create' });
  });

  it('answers a malformed request after a good one on the same connection, then closes it', async () => {
    const res = await sendRaw(server, 'GET /healthz HTTP/1.1\r\nHost: test\r\n\r\nGET /healthz HTTP/1.1\r\nHost: test\r\nNot a header\r\n\r\n');
    expect(res.closedByServer).toBe(true);
    expect(res.text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"status":"ok"\}HTTP\/1\.1 400 Bad Request\r\n/);
    expect(res.text).toMatch(/\{"error":\{"code":"BAD_REQUEST","message":"Malformed HTTP request: Invalid header token"\}\}$/);
  });
});

describe('the clientError handler', () => {
  it('does not throw when the socket can no longer be written, and destroys it', () => {
    const socket = new Socket();
    socket.destroy();
    const error = Object.assign(new Error('Parse Error: Header overflow'), { code: 'HPE_HEADER_OVERFLOW' });
    expect(() => server.emit('clientError', error, socket)).not.toThrow();
    expect(socket.destroyed).toBe(true);
  });

  it('answers nothing to a connection reset by the client, and destroys the socket', () => {
    const socket = new Socket();
    const written: unknown[] = [];
    socket.write = ((chunk: unknown) => written.push(chunk)) as never;
    const error = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    server.emit('clientError', error, socket);
    expect(written).toEqual([]);
    expect(socket.destroyed).toBe(true);
  });
});
