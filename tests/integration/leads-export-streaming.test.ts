import { get, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { createTestContext, testDatabaseUrl } from '../helpers/test-app';
import { createDb } from '../../src/db/knex';
import { EXPORTS_AT_ONCE } from '../../src/http/leads-rest/export-answer';
import { createWorkspace } from '../helpers/factories';
import { createLeadRest, deleteLeadRest, patchLeadRest } from '../helpers/leads-rest';
import { portOf } from '../helpers/raw-socket';
import { exportBackend, seedLongLeads } from '../helpers/leads-export';
import { sleep, until } from '../helpers/poll';
import * as leads from '../../src/db/leads';

// An export's stream under real HTTP: its snapshot while others write, a reader that stops
// reading (PostgreSQL waits to write, nothing piles up in the service), and one that goes away
// (the statement ends, the connection goes back). Each lead carries 10 KB of notes, so an export
// is far larger than every buffer between PostgreSQL and the reader (about 40 MB).

// Each case moves about 40 MB through a machine whose cores the whole suite shares.
jest.setTimeout(120_000);

const ctx = createTestContext();
let server: Server;
const serverSockets: Socket[] = [];
beforeAll(async () => {
  server = ctx.app.listen(0, '127.0.0.1');
  server.on('connection', (socket) => serverSockets.push(socket));
  await new Promise((resolve) => server.once('listening', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await ctx.close();
});

const LEADS = 4000;

/** Opens a raw connection, asks for the export without compression, and stops reading once the first bytes are in. */
async function stalledExport(key: string): Promise<Socket> {
  const socket = connect(portOf(server), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`GET /api/v1/leads/export?format=ndjson HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  await new Promise<void>((resolve) => {
    socket.once('data', () => {
      socket.pause();
      resolve();
    });
  });
  return socket;
}

describe('GET /api/v1/leads/export while the workspace changes', () => {
  it('answers exactly the leads that existed when it started, each once with its values then, whatever is written meanwhile', async () => {
    const ws = await createWorkspace(ctx.db);
    await seedLongLeads(ctx.db, ws.org.id, 'snap', LEADS);
    const atStart = new Map((await leads.renderLeadJson(ctx.db, ws.org.id)).map(({ lead_id, json }) => [lead_id, json]));

    const body = await new Promise<{ res: IncomingMessage; chunks: Buffer[]; done: Promise<void> }>((resolve, reject) => {
      const req = get({ port: portOf(server), host: '127.0.0.1', path: '/api/v1/leads/export?format=ndjson', headers: { Authorization: `Bearer ${ws.key}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.pause();
        const done = new Promise<void>((ended) => res.on('end', ended));
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.pause();
        resolve({ res, chunks, done });
      });
      req.on('error', reject);
    });
    expect(body.res.statusCode).toBe(200);
    // The export is under way and waits for its reader: PostgreSQL is blocked writing to the service.
    expect(await until(async () => (await exportBackend(ctx.db, ws.org.id))?.wait_event === 'ClientWrite', 10_000)).toBe(true);

    const ids = [...atStart.keys()];
    for (const id of ids.slice(0, 20)) expect((await patchLeadRest(ctx.app, ws.key, id, { notes: 'changed', status: 'CONTACTED' })).status).toBe(200);
    for (const id of ids.slice(20, 40)) expect((await deleteLeadRest(ctx.app, ws.key, id)).status).toBe(204);
    for (let i = 0; i < 20; i++) expect((await createLeadRest(ctx.app, ws.key, { name: `Later ${i}`, phone: '+442079460001' })).status).toBe(201);

    body.res.resume();
    await body.done;
    const lines = Buffer.concat(body.chunks).toString('utf8').slice(0, -1).split('\n');

    expect(lines).toHaveLength(LEADS);
    const exported = new Map(lines.map((line) => [(JSON.parse(line) as { id: string }).id, line]));
    expect(exported.size).toBe(LEADS);
    expect(exported).toEqual(atStart);
    expect(await until(async () => (await exportBackend(ctx.db, ws.org.id)) === undefined, 5000)).toBe(true);
  }, 120_000);
});

describe('GET /api/v1/leads/export and its reader', () => {
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    const ws = await createWorkspace(ctx.db);
    await seedLongLeads(ctx.db, ws.org.id, 'slow', LEADS);
    key = ws.key;
    orgId = ws.org.id;
  }, 60_000);

  it('waits for a reader that stops reading: PostgreSQL blocks writing and the service sends nothing more, then completes when it reads again', async () => {
    const socket = await stalledExport(key);
    expect(await until(async () => (await exportBackend(ctx.db, orgId))?.wait_event === 'ClientWrite', 10_000)).toBe(true);
    const serverSocket = serverSockets.at(-1)!;
    const written = serverSocket.bytesWritten;
    await sleep(500);
    expect(serverSocket.bytesWritten).toBe(written);
    expect(await exportBackend(ctx.db, orgId)).toMatchObject({ state: 'active', wait_event: 'ClientWrite' });
    // Far less than the export is sent: the rest waits in PostgreSQL, not in the service.
    expect(written).toBeLessThan(LEADS * 10_000 / 2);

    let last = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => (last = Buffer.concat([last, chunk]).subarray(-16)));
    const closed = new Promise((resolve) => socket.on('end', resolve));
    socket.resume();
    await closed;
    // The chunked body's last chunk: the export ended whole.
    expect(last.toString('latin1').endsWith('0\r\n\r\n')).toBe(true);
    expect(await until(async () => (await exportBackend(ctx.db, orgId)) === undefined, 5000)).toBe(true);
  });

  it('ends the statement and gives its connection back when the reader goes away mid-export', async () => {
    const socket = await stalledExport(key);
    expect(await until(async () => (await exportBackend(ctx.db, orgId))?.wait_event === 'ClientWrite', 10_000)).toBe(true);

    socket.destroy();

    // Its backend is gone, not left idle (its last statement would still show): transaction and connection ended.
    expect(await until(async () => (await exportBackend(ctx.db, orgId)) === undefined, 10_000)).toBe(true);
    const res = await fetch(`http://127.0.0.1:${portOf(server)}/api/v1/leads/export?format=ndjson&status=LOST`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  it(`answers 429 to an export beyond ${EXPORTS_AT_ONCE} running at once, and serves it again once one ends`, async () => {
    const stalled: Socket[] = [];
    for (let i = 0; i < EXPORTS_AT_ONCE; i++) stalled.push(await stalledExport(key));

    const refused = await fetch(`http://127.0.0.1:${portOf(server)}/api/v1/leads/export`, { headers: { Authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('TOO_MANY_REQUESTS');

    stalled.pop()!.destroy();
    expect(await until(async () => {
      const res = await fetch(`http://127.0.0.1:${portOf(server)}/api/v1/leads/export?status=LOST`, { headers: { Authorization: `Bearer ${key}` } });
      await res.text();
      return res.status === 200;
    }, 10_000)).toBe(true);
    for (const socket of stalled) socket.destroy();
    expect(await until(async () => (await exportBackend(ctx.db, orgId)) === undefined, 10_000)).toBe(true);
  });
});

describe('GET /api/v1/leads/export on a pool with a statement timeout', () => {
  // The service's pools give up on an answer after DB_STATEMENT_TIMEOUT_MS; an export is one statement that lasts as long as its reader.
  const timed = createTestContext({ db: createDb({ url: testDatabaseUrl(), poolMax: 5, statementTimeoutMs: 200, namedStatements: true, onWarning: () => undefined }) });
  let timedServer: Server;
  beforeAll(async () => {
    timedServer = timed.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => timedServer.once('listening', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => timedServer.close(resolve));
    await timed.close();
  });

  it('completes an export whose reader holds it far longer than the pool\'s timeout', async () => {
    const ws = await createWorkspace(ctx.db);
    await seedLongLeads(ctx.db, ws.org.id, 'timed', LEADS);

    const text = await new Promise<string>((resolve, reject) => {
      get({ port: portOf(timedServer), host: '127.0.0.1', path: '/api/v1/leads/export?format=ndjson', headers: { Authorization: `Bearer ${ws.key}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.pause();
        setTimeout(() => res.resume(), 1500);
      }).on('error', reject);
    });

    expect(text.slice(0, -1).split('\n')).toHaveLength(LEADS);
  }, 60_000);
});

