import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { insertEndpoint, startReceiver, startWorkerProcess, type Receiver } from '../helpers/webhook-fixtures';
import { killIfRunning, startServer, stopServer, type ServerProcess } from '../helpers/server-process';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver';
import { TEST_JWT_SECRETS } from '../helpers/test-secrets';
import { sleep, until } from '../helpers/poll';
import { openStream, subscriptionPath } from '../helpers/sse';

// Tracing as an operator turns it on: the service and the worker as their own processes, with the
// standard OTEL_* variables pointing at an OTLP receiver in this test, on the run's database.
const ROOT = join(__dirname, '..', '..');
const db = createTestDb();
const run = promisify(execFile);

/** Short batches, so spans arrive within the test's waits. */
const OTEL_JSON = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100' };

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const lines = (server: ServerProcess) => server.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);

let otlp: OtlpReceiver;
let hooks: Receiver;
let server: ServerProcess | undefined;
let worker: ReturnType<typeof startWorkerProcess> | undefined;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  hooks = await startReceiver();
});

afterEach(async () => {
  if (worker && worker.child.exitCode === null) {
    worker.child.kill('SIGTERM');
    await worker.exited;
  }
  worker = undefined;
  await stopServer(server);
  server = undefined;
});

afterAll(async () => {
  killIfRunning(server);
  worker?.child.kill('SIGKILL');
  await otlp.close();
  await hooks.close();
  await db.destroy();
});

describe('tracing on (OTEL_EXPORTER_OTLP_ENDPOINT, http/json)', () => {
  it('continues the caller\'s traceparent through the procedure and its statements, links the worker\'s delivery to it, and exports no input, key, secret or personal field', async () => {
    const ws = await createWorkspace(db);
    const markers = {
      name: `Name ${randomUUID()}`,
      phone: `+4420794${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`,
      email: `m${hex(8)}@example.com`,
      notes: `notes ${randomUUID()}`,
      query: `q${hex(12)}`,
      input: `in${hex(12)}`,
      secret: `whsec_${hex(16)}`,
    };
    await insertEndpoint(db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: hooks.url, secret: markers.secret, events: ['lead.created'] });
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, ...OTEL_JSON };
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), ...TEST_JWT_SECRETS, ...otel });
    worker = startWorkerProcess({ ...otel, ...TEST_JWT_SECRETS, WEBHOOK_WORKER_ORG_IDS: ws.org.id, WEBHOOK_POLL_MS: '20' });
    const base = `http://127.0.0.1:${server.port}`;
    const auth = { Authorization: `Bearer ${ws.key}` };

    // The start says where spans go.
    expect(await server.waitForLine(/tracing: on/)).toContain(`${otlp.url}/v1/traces`);

    // A live reader of the workspace's events: the write's fan-out to it is a span too.
    const stream = await openStream(base, subscriptionPath('events.onEvent', {}), auth);
    expect(stream.status).toBe(200);
    expect((await stream.next()).event).toBe('connected');

    const traceId = hex(16);
    const callerSpan = hex(8);
    const created = await fetch(`${base}/api/v1/rpc/leads.create?ignored=${markers.query}`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json', traceparent: `00-${traceId}-${callerSpan}-01` },
      body: JSON.stringify({ json: { name: markers.name, phone: markers.phone, email: markers.email, notes: markers.notes } }),
    });
    expect(created.status).toBe(200);
    const leadId = ((await created.json()) as { result: { data: { json: { id: string } } } }).result.data.json.id;
    // A read whose input (in the query string) carries a marker: refused (400), traced all the same.
    const input = encodeURIComponent(JSON.stringify({ json: { id: leadId, extra: markers.input } }));
    expect((await fetch(`${base}/api/v1/rpc/leads.getById?input=${input}`, { headers: auth })).status).toBe(400);

    // The webhook went out, without our trace context.
    expect(await until(() => hooks.requests.some((r) => r.eventType === 'lead.created' && r.body.includes(leadId)), 20_000)).toBe(true);
    const delivered = hooks.requests.find((r) => r.body.includes(leadId))!;
    expect(delivered.headers.traceparent).toBeUndefined();
    expect(delivered.headers.tracestate).toBeUndefined();
    expect(delivered.headers.baggage).toBeUndefined();

    const inTrace = () => otlp.spans().filter((s) => s.traceId === traceId);
    const deliverySpan = () => otlp.spans().find((s) => s.name === 'webhook.deliver' && s.attributes['workspace.event.type'] === 'lead.created' && s.attributes['workspace.org_id'] === ws.org.id);
    expect(await until(() => inTrace().some((s) => s.name === 'leads.create' && s.kind === 2) && deliverySpan() !== undefined, 20_000)).toBe(true);

    // The server span continues the caller's trace, named by the procedure.
    const serverSpan = inTrace().find((s) => s.kind === 2)!;
    expect(serverSpan).toMatchObject({ service: 'workspace-api', name: 'leads.create', parentSpanId: callerSpan });
    expect(serverSpan.attributes).toMatchObject({ 'http.response.status_code': 200, 'http.route': 'leads.create' });
    for (const dropped of ['url.path', 'url.full', 'url.query', 'user_agent.original', 'client.address', 'network.peer.address']) expect(serverSpan.attributes[dropped]).toBeUndefined();
    // The procedure's span, a child of it; the statements, children of the procedure's.
    const procedureSpan = inTrace().find((s) => s.name === 'leads.create' && s.parentSpanId === serverSpan.spanId)!;
    expect(procedureSpan.attributes).toMatchObject({ 'rpc.method': 'leads.create', 'workspace.procedure.type': 'mutation', 'workspace.org_id': ws.org.id, 'workspace.principal.id': ws.keyId });
    const statements = inTrace().filter((s) => s.parentSpanId === procedureSpan.spanId && s.name.startsWith('pg.query'));
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.some((s) => /insert into/i.test(String(s.attributes['db.query.text'] ?? s.attributes['db.statement'])))).toBe(true);

    // The delivery is a trace of its own in the worker, linked to the call that recorded the event.
    const delivery = deliverySpan()!;
    expect(delivery.service).toBe('workspace-api-worker');
    expect(delivery.traceId).not.toBe(traceId);
    expect(delivery.links).toEqual([{ traceId, spanId: procedureSpan.spanId }]);
    expect(delivery.attributes['workspace.webhook.result']).toBe('succeeded');

    // The live fan-out round that handed the events to the reader: a trace of its own, counts only.
    expect((await stream.values(2, 10_000)).map((v) => v.value.type)).toEqual(['contact.created', 'lead.created']);
    stream.close();
    const fanOut = () => otlp.spans().find((s) => s.name === 'live.fan_out' && s.attributes['workspace.org_id'] === ws.org.id && Number(s.attributes['workspace.live.events']) > 0);
    expect(await until(() => fanOut() !== undefined, 10_000)).toBe(true);
    expect(fanOut()).toMatchObject({ parentSpanId: undefined, attributes: { 'workspace.live.events': 2, 'workspace.live.followers': 1 } });

    // The refused read's server span: named by its procedure, its query string nowhere, its error code on its procedure span.
    const readSpans = otlp.spans().filter((s) => s.name === 'leads.getById');
    expect(readSpans.find((s) => s.kind === 2)?.attributes['http.response.status_code']).toBe(400);
    expect(readSpans.find((s) => s.kind !== 2)?.attributes['workspace.error_code']).toBe('BAD_REQUEST');

    // Nothing the caller sent, nor the key, nor the endpoint's secret, in any span, attribute or resource, in any export.
    await sleep(300);
    const exported = otlp.exports.map((e) => e.body.toString('latin1')).join('\n');
    expect([...Object.values(markers), ws.key, hooks.url, 'input='].filter((marker) => exported.includes(marker))).toEqual([]);

    // The request's log lines carry its trace.
    const requestLine = lines(server).find((l) => l.msg === 'request' && l.route === 'leads.create');
    expect(requestLine).toMatchObject({ traceId, spanId: serverSpan.spanId });
  }, 90_000);

  it('exports http/protobuf by default', async () => {
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), ...TEST_JWT_SECRETS, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' });
    const before = otlp.exports.length;
    const traceId = hex(16);
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/leads`, { headers: { traceparent: `00-${traceId}-${hex(8)}-01` } });
    expect(res.status).toBe(401);
    const arrived = () => otlp.exports.slice(before).some((e) => e.contentType === 'application/x-protobuf' && e.body.includes(Buffer.from(traceId, 'hex')));
    expect(await until(arrived, 10_000)).toBe(true);
  }, 60_000);

  it('exports the spans still buffered when it stops (SIGTERM)', async () => {
    // A batch delay far longer than the test: only the flush at exit can send the request's spans.
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), ...TEST_JWT_SECRETS, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, ...OTEL_JSON, OTEL_BSP_SCHEDULE_DELAY: '600000' });
    const traceId = hex(16);
    expect((await fetch(`http://127.0.0.1:${server.port}/api/v1/leads`, { headers: { traceparent: `00-${traceId}-${hex(8)}-01` } })).status).toBe(401);
    await sleep(300);
    expect(otlp.spans().some((s) => s.traceId === traceId)).toBe(false);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(otlp.spans().filter((s) => s.traceId === traceId).map((s) => s.name)).toEqual(['GET /api/v1/leads']);
  }, 60_000);

  it('refuses gRPC at start, naming the variable', async () => {
    const failed = await run(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: testDatabaseUrl(), OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
    }).then(() => ({ code: 0, stderr: '' }), (err: { code: number; stderr: string }) => err);
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim()).toBe('Invalid environment variable OTEL_EXPORTER_OTLP_PROTOCOL: gRPC is not supported (use http/protobuf, the default, or http/json)');
  }, 60_000);
});

describe('tracing off (no OTEL_* variable)', () => {
  it('exports nothing and adds nothing to the log lines', async () => {
    const ws = await createWorkspace(db);
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), ...TEST_JWT_SECRETS, OTEL_BSP_SCHEDULE_DELAY: '100' });
    const before = otlp.exports.length;
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/leads`, { headers: { Authorization: `Bearer ${ws.key}`, traceparent: `00-${hex(16)}-${hex(8)}-01` } });
    expect(res.status).toBe(200);
    await server.waitForLine(/"msg":"request"/);
    await sleep(500);
    expect(otlp.exports.length).toBe(before);
    expect(server.lines.join('\n')).not.toMatch(/tracing: on|traceId|spanId/);
    expect(lines(server).find((l) => l.msg === 'request')).toMatchObject({ route: 'GET /api/v1/leads', status: 200 });
  }, 60_000);
});
