import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWorkspaceClient, WorkspaceApiError } from '../../packages/client/src';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelayMs } from '../../packages/client/src/retry-policy';

/**
 * The client's retries, timeouts and aborts against a local HTTP server that answers from a script:
 * each request takes the next step (the last one repeats), and every request's headers are kept.
 */
type Step = (req: IncomingMessage, res: ServerResponse) => void;

const ok: Step = (_req, res) => answer(res, 200, { result: { data: { json: { id: 'lead_1', deleted: true } } } });
const status =
  (code: number, headers: Record<string, string> = {}): Step =>
  (_req, res) =>
    answer(res, code, { error: { json: { message: `HTTP ${code}`, code: -32603, data: { code: code === 429 ? 'TOO_MANY_REQUESTS' : 'SERVICE_UNAVAILABLE', httpStatus: code } } } }, headers);
const dropConnection: Step = (req) => req.socket.destroy();
const hang: Step = () => undefined;

function answer(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(code, { 'Content-Type': 'application/json', 'X-Request-Id': `req-${received.length}`, ...headers });
  res.end(JSON.stringify(body));
}

let server: Server;
let baseUrl: string;
let script: Step[] = [];
let received: IncomingMessage['headers'][] = [];

// A server (so a port, so a connection pool) per test: no test inherits another's sockets.
beforeEach(async () => {
  server = createServer((req, res) => {
    received.push(req.headers);
    req.resume();
    const step = script[Math.min(received.length - 1, script.length - 1)]!;
    req.on('end', () => step(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function given(...steps: Step[]) {
  script = steps;
  received = [];
  return createWorkspaceClient({ baseUrl, apiKey: 'wsk_test' });
}

async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
}

describe('client retries on 429 and 503', () => {
  it('retries a write after a 429 with Retry-After in seconds, sending the same Idempotency-Key', async () => {
    const client = given(status(429, { 'Retry-After': '0' }), ok);

    await expect(client.leads.delete({ id: 'lead_1' })).resolves.toEqual({ id: 'lead_1', deleted: true });

    expect(received).toHaveLength(2);
    const keys = received.map((h) => h['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it('waits out a Retry-After given as an HTTP date', async () => {
    const client = given(status(429, { 'Retry-After': new Date(Date.now() + 1_000).toUTCString() }), ok);
    const started = Date.now();

    await client.leads.getById({ id: 'lead_1' });

    expect(received).toHaveLength(2);
    // An HTTP date has whole seconds: the wait is up to 1 s, minus what has passed since it was written.
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('retries a 503 without Retry-After after a jittered backoff', async () => {
    const client = given(status(503), status(503), ok);

    await client.leads.getById({ id: 'lead_1' });

    expect(received).toHaveLength(3);
    expect(received.every((h) => h['idempotency-key'] === undefined)).toBe(true);
  });

  it('gives up after maxRetries and rejects with the last answer: code, status and request id', async () => {
    const client = given(status(503, { 'Retry-After': '0' }));

    const err = await rejectionOf(client.leads.create({ name: 'Ada', phone: '+442079460123' }));

    expect(received).toHaveLength(3);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, httpStatus: 503, requestId: 'req-3', path: 'leads.create' });
    expect(new Set(received.map((h) => h['idempotency-key'])).size).toBe(1);
  });

  it('makes one attempt when the call says maxRetries: 0', async () => {
    const client = given(status(429, { 'Retry-After': '0' }));

    await expect(client.leads.getAll(undefined, { maxRetries: 0 })).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429 });
    expect(received).toHaveLength(1);
  });

  it(`answers at once when Retry-After asks for more than ${MAX_RETRY_AFTER_MS / 1000} s`, async () => {
    const client = given(status(429, { 'Retry-After': '3600' }), ok);

    await expect(client.leads.getAll()).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429 });
    expect(received).toHaveLength(1);
  });

  it('does not retry other failures (a 500)', async () => {
    const client = given(status(500), ok);

    await expect(client.leads.getAll()).rejects.toMatchObject({ status: 500 });
    expect(received).toHaveLength(1);
  });
});

describe('client idempotency keys', () => {
  it('sends the caller key on a write, and a fresh key on each new call', async () => {
    const client = given(ok);

    await client.leads.delete({ id: 'lead_1' }, { idempotencyKey: 'delete-lead_1' });
    await client.leads.delete({ id: 'lead_1' });
    await client.leads.delete({ id: 'lead_1' });

    expect(received[0]!['idempotency-key']).toBe('delete-lead_1');
    expect(received[1]!['idempotency-key']).not.toBe(received[2]!['idempotency-key']);
  });
});

describe('client network failures', () => {
  it('retries a write whose connection dropped, with the same Idempotency-Key', async () => {
    const client = given(dropConnection, ok);

    await client.leads.delete({ id: 'lead_1' });

    expect(received).toHaveLength(2);
    expect(received[1]!['idempotency-key']).toBe(received[0]!['idempotency-key']);
  });

  it('retries a REST PATCH the same way: it carries an Idempotency-Key too', async () => {
    const client = given(dropConnection, (_req, res) => answer(res, 200, { id: 'lead_1', createdAt: '2030-01-01T00:00:00.000Z', updatedAt: '2030-01-01T00:00:00.000Z', nextCallAt: null }, { ETag: '"v2"' }));

    const updated = await client.leads.rest.update('lead_1', { notes: 'x' }, { ifMatch: '"v1"' });

    expect(updated.etag).toBe('"v2"');
    expect(updated.lead.createdAt).toBeInstanceOf(Date);
    expect(received).toHaveLength(2);
    expect(received.map((h) => h['if-match'])).toEqual(['"v1"', '"v1"']);
    expect(received[1]!['idempotency-key']).toBe(received[0]!['idempotency-key']);
  });

  it('rejects with NETWORK_ERROR (status 0) once the retries run out', async () => {
    const client = given(dropConnection);

    const err = await rejectionOf(client.leads.rest.get('lead_1', { maxRetries: 1 }));

    expect(received).toHaveLength(2);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    expect(err).toMatchObject({ code: 'NETWORK_ERROR', status: 0, requestId: undefined, path: '/api/v1/leads/lead_1' });
  });
});

describe('client timeouts and aborts', () => {
  it('rejects with TIMEOUT when no answer comes within timeoutMs, after retrying a read', async () => {
    const client = given(hang);
    const started = Date.now();

    const err = await rejectionOf(client.leads.getAll(undefined, { timeoutMs: 200, maxRetries: 1 }));

    expect(err).toBeInstanceOf(WorkspaceApiError);
    expect(err).toMatchObject({ code: 'TIMEOUT', status: 0, message: 'No answer within 200 ms' });
    expect(received).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('honours the client-wide timeoutMs', async () => {
    script = [hang];
    received = [];
    const client = createWorkspaceClient({ baseUrl, apiKey: 'wsk_test', timeoutMs: 150, maxRetries: 0 });

    await expect(client.leads.getById({ id: 'lead_1' })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(received).toHaveLength(1);
  });

  it("rejects with the signal's reason when the caller aborts, without retrying", async () => {
    const client = given(hang);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);

    const err = await rejectionOf(client.leads.create({ name: 'Ada', phone: '+442079460123' }, { signal: controller.signal }));

    expect(err).not.toBeInstanceOf(WorkspaceApiError);
    expect((err as Error).name).toBe('AbortError');
    expect(received).toHaveLength(1);
  });

  it('stops waiting for a retry when the caller aborts', async () => {
    const client = given(status(503, { 'Retry-After': '15' }), ok);
    const started = Date.now();

    const err = await rejectionOf(client.leads.getAll(undefined, { signal: AbortSignal.timeout(150) }));

    expect((err as Error).name).toBe('TimeoutError');
    expect(received).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('does not start when the signal has already aborted', async () => {
    const client = given(ok);

    await expect(client.leads.getAll(undefined, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(received).toHaveLength(0);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2030-01-01T00:00:00.000Z');

  it.each([
    ['0', 0],
    ['7', 7_000],
    [' 12 ', 12_000],
    ['Tue, 01 Jan 2030 00:00:05 GMT', 5_000],
    ['Mon, 31 Dec 2029 23:59:00 GMT', 0],
  ])('reads %j as %i ms', (header, ms) => {
    expect(parseRetryAfter(header, now)).toBe(ms);
  });

  it.each([null, undefined, '', 'soon', '-1', '1.5'])('leaves %j unread', (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it('waits at least Retry-After, adding at most 10% (and 1 s) of jitter', () => {
    expect(retryDelayMs(1, 2_000, () => 0)).toBe(2_000);
    expect(retryDelayMs(1, 2_000, () => 0.999)).toBe(2_199);
    expect(retryDelayMs(1, 20_000, () => 0.999)).toBe(20_999);
  });

  it(`refuses a Retry-After beyond ${MAX_RETRY_AFTER_MS} ms`, () => {
    expect(retryDelayMs(1, MAX_RETRY_AFTER_MS + 1, () => 0)).toBeUndefined();
  });

  it('backs off exponentially with full jitter, capped at 8 s', () => {
    expect([1, 2, 3, 4, 5, 6].map((retry) => retryDelayMs(retry, undefined, () => 0.999999))).toEqual([499, 999, 1999, 3999, 7999, 7999]);
    expect(retryDelayMs(3, undefined, () => 0)).toBe(0);
  });
});
