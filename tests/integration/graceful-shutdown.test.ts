import * as leads from '../../src/db/leads';
import type { Db } from '../../src/db/knex';
import { HotReads } from '../../src/db/connect';
import { createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { openStream, subscriptionPath } from '../helpers/sse';
import { killIfRunning, openConnection, sleep, startServer, tryConnect, type ServerProcess } from '../helpers/server-process';

let db: Db;
let workspace: Awaited<ReturnType<typeof createWorkspace>>;
let server: ServerProcess | undefined;

beforeAll(async () => {
  db = createTestDb();
  workspace = await createWorkspace(db);
});
afterEach(() => killIfRunning(server));
afterAll(() => db.destroy());

/** Headers and a body for leads.create, to be written in pieces. */
function leadsCreateRequest(name: string, port: number) {
  const body = JSON.stringify({ json: { name, phone: '+442079460018' } });
  const head = [
    'POST /api/v1/rpc/leads.create HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${workspace.key}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    '',
  ].join('\r\n');
  return { head, firstHalf: body.slice(0, 20), rest: body.slice(20) };
}

function statusOf(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
}

describe('SIGTERM', () => {
  it('lets a request whose body is still arriving finish with 200, refuses new connections, ignores a second signal, and exits 0', async () => {
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), SHUTDOWN_TIMEOUT_MS: '10000' });
    const name = `Shutdown lead ${Date.now()}`;
    const request = leadsCreateRequest(name, server.port);
    const conn = await openConnection(server.port);
    conn.socket.write(request.head + request.firstHalf);
    await sleep(200); // the server has the headers and is reading the body

    server.child.kill('SIGTERM');
    await server.waitForLine(/shutting down/);
    expect(await tryConnect(server.port)).toBe('ECONNREFUSED');
    server.child.kill('SIGINT');
    await server.waitForLine(/already shutting down/);
    await sleep(300);
    expect(server.child.exitCode).toBeNull(); // still waiting for the body

    conn.socket.write(request.rest);
    await conn.closed; // the server closes the connection after answering
    const response = conn.received();
    expect(statusOf(response)).toBe(200);
    expect(response).toMatch(/\r\nConnection: close\r\n/i);
    const id = /"id":"(lead_[0-9A-Za-z]+)"/.exec(response)?.[1];
    expect(id).toBeDefined();
    expect((await leads.getById(db, HotReads.on(db), workspace.org.id, id!))?.name).toBe(name);

    expect(await server.exited).toBe(0);
    expect(server.lines.filter((line) => /shutting down: no longer accepting/.test(line))).toHaveLength(1);
    expect(server.lines.join('\n')).toMatch(/database closed/);
  }, 90_000);

  it('closes an idle keep-alive connection at once instead of waiting for the timeout', async () => {
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), SHUTDOWN_TIMEOUT_MS: '30000' });
    const conn = await openConnection(server.port);
    conn.socket.write(`GET /api/v1/leads?pageSize=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${workspace.key}\r\n\r\n`);
    while (!conn.received().includes('\r\n\r\n')) await sleep(20);
    expect(statusOf(conn.received())).toBe(200);
    expect(conn.received()).toMatch(/\r\nConnection: keep-alive\r\n/i); // the connection stays open

    const started = Date.now();
    server.child.kill('SIGTERM');
    await conn.closed;
    expect(await server.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
  }, 90_000);

  it('ends open subscription streams at once as dropped connections (no `return`), so clients resume elsewhere, and exits 0', async () => {
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), SHUTDOWN_TIMEOUT_MS: '30000' });
    const stream = await openStream(`http://127.0.0.1:${server.port}`, subscriptionPath('events.onEvent'), { Authorization: `Bearer ${workspace.key}` });
    expect((await stream.next()).event).toBe('connected');

    const started = Date.now();
    server.child.kill('SIGTERM');
    await stream.ended();
    expect(stream.frames.map((frame) => frame.event)).toEqual(['connected']);
    expect(await server.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(3000);
  }, 90_000);

  it('destroys a request that never finishes once SHUTDOWN_TIMEOUT_MS has passed, and exits 1 within 2 seconds', async () => {
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), SHUTDOWN_TIMEOUT_MS: '500' });
    const request = leadsCreateRequest('Never finished', server.port);
    const conn = await openConnection(server.port);
    conn.socket.write(request.head + request.firstHalf);
    await sleep(200);

    const started = Date.now();
    server.child.kill('SIGTERM');
    const code = await server.exited;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(code).toBe(1);
    await conn.closed;
    expect(conn.received()).toBe(''); // cut off, not answered
    expect(server.lines.join('\n')).toMatch(/shutdown timeout: destroying the remaining connections/);
  }, 90_000);
});
