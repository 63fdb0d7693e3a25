import type { Server } from 'node:http';
import express from 'express';
import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { exchange } from '../helpers/raw-socket';
import { createHttpServer } from '../../src/server/http-server';

/**
 * A client that sends its request slowly (slow loris) holds a connection only until the
 * server's timeouts, made small here: headers within 600 ms, the whole request within 1.2 s,
 * checked every 100 ms. Meanwhile other clients are served.
 */
const HEADERS_TIMEOUT = 600;
const REQUEST_TIMEOUT = 1200;
const CHECK_INTERVAL = 100;
const KEEP_ALIVE_TIMEOUT = 300;

const ctx = createTestContext();
let server: Server;
let key: string;

beforeAll(async () => {
  server = createHttpServer(ctx.app, {
    headersTimeout: HEADERS_TIMEOUT, requestTimeout: REQUEST_TIMEOUT, keepAliveTimeout: KEEP_ALIVE_TIMEOUT, connectionsCheckingInterval: CHECK_INTERVAL,
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  key = (await createWorkspace(ctx.db)).key;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await ctx.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `head` in full, then `trickle` one byte every `everyMs` until the socket closes. */
function trickling(head: string, trickle: string, everyMs: number) {
  const started = Date.now();
  const answer = exchange(server, (socket) => {
    socket.write(head);
    let i = 0;
    const timer = setInterval(() => {
      if (socket.destroyed || i >= trickle.length) return clearInterval(timer);
      socket.write(trickle[i++]!);
    }, everyMs);
    socket.on('close', () => clearInterval(timer));
  }, 5000);
  return answer.then((res) => ({ ...res, elapsed: Date.now() - started }));
}

describe('a client trickling its headers', () => {
  it('is answered 408 in JSON and cut off after headersTimeout, while another client is served 200', async () => {
    const slow = trickling('GET /api/v1/leads HTTP/1.1\r\nHost: test\r\nX-Slow: ', 'a'.repeat(100), 150);
    await sleep(200);
    const normal = await request(server).get('/api/v1/leads').set('Authorization', `Bearer ${key}`);
    expect(normal.status).toBe(200);

    const res = await slow;
    expect(res.closedByServer).toBe(true);
    expect(res.elapsed).toBeGreaterThanOrEqual(HEADERS_TIMEOUT - 50);
    expect(res.elapsed).toBeLessThan(HEADERS_TIMEOUT + 4 * CHECK_INTERVAL + 500);
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'TIMEOUT', message: 'The request was not received in time' } });
  });

  it('cuts off a client that connects and sends nothing, after headersTimeout', async () => {
    const res = await trickling('', '', 1000);
    expect(res.closedByServer).toBe(true);
    expect(res.elapsed).toBeLessThan(HEADERS_TIMEOUT + 4 * CHECK_INTERVAL + 500);
  });
});

describe('a client trickling its body', () => {
  it('is answered 408 and cut off after requestTimeout, though each byte arrives in time', async () => {
    const body = JSON.stringify({ json: { name: 'Slow Body', phone: '+442079460019' } });
    const head = `POST /api/v1/rpc/leads.create HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const res = await trickling(head, body, 100);
    expect(res.closedByServer).toBe(true);
    expect(res.elapsed).toBeGreaterThanOrEqual(REQUEST_TIMEOUT - 50);
    expect(res.elapsed).toBeLessThan(REQUEST_TIMEOUT + 4 * CHECK_INTERVAL + 500);
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
  });
});

describe('an idle keep-alive connection', () => {
  it('is closed keepAliveTimeout after its last answer (Node adds a second past the advertised timeout)', async () => {
    const started = Date.now();
    const res = await exchange(server, (socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n'), 5000);
    expect(res.status).toBe(200);
    expect(res.headers['keep-alive']).toBe('timeout=0');
    expect(res.closedByServer).toBe(true);
    expect(Date.now() - started).toBeLessThan(KEEP_ALIVE_TIMEOUT + 1000 + 500);
  });
});

describe('a handler slower than requestTimeout', () => {
  it('still answers: the timeout bounds receiving the request, not the work on it', async () => {
    const app = express();
    app.get('/slow', async (_req, res) => {
      await sleep(REQUEST_TIMEOUT + 400);
      res.json({ done: true });
    });
    const slowServer = createHttpServer(app, { headersTimeout: HEADERS_TIMEOUT, requestTimeout: REQUEST_TIMEOUT, connectionsCheckingInterval: CHECK_INTERVAL });
    await new Promise((resolve) => slowServer.listen(0, '127.0.0.1', () => resolve(undefined)));
    try {
      const res = await request(slowServer).get('/slow');
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { done: true } });
    } finally {
      await new Promise((resolve) => slowServer.close(resolve));
    }
  });
});
