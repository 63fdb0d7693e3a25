import { createApp } from '../../src/app';
import { createLogger } from '../../src/logger';
import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure } from '../helpers/leads-procedures-helpers';
import { insertEndpoint, startReceiver, type Receiver } from '../helpers/webhook-fixtures';
import { memoryLimiter } from '../helpers/rate-limit';
import { TEST_JWT_SECRETS } from '../helpers/test-secrets';
import { verifyWebhookSignature } from '../../packages/client/src';

const ctx = createTestContext();
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});
afterAll(() => ctx.close());

const sendTest = (key: string, input: unknown, app = ctx.app) => rpcPost(app, 'webhooks.sendTestEvent', input, key);

async function storedCounts(orgId: string) {
  const [deliveries] = await ctx.db('webhook_deliveries').where({ org_id: orgId }).count({ n: '*' });
  const [events] = await ctx.db('events').where({ org_id: orgId }).count({ n: '*' });
  const [hours] = await ctx.db('webhook_endpoint_hours').where({ org_id: orgId }).count({ n: '*' });
  return { deliveries: Number(deliveries!.n), events: Number(events!.n), hours: Number(hours!.n) };
}

function expectRefused(res: { status: number; body: any }, reason: RegExp): void {
  expect({ status: res.status, code: res.body?.error?.json?.data?.code }).toEqual({ status: 422, code: 'UNPROCESSABLE_CONTENT' });
  expect(res.body.error.json.message).toMatch(/URL-safety rules/);
  expect(res.body.error.json.message).toMatch(reason);
  expect(res.body.error.json.message).toMatch(/nothing was sent/);
}

describe('POST webhooks.sendTestEvent', () => {
  it('sends a ping signed with the endpoint secret, which the client package verifies, and answers what the receiver said; records nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver(() => ({ status: 200, body: 'pong' }));
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url });

    const res = await sendTest(ws.key, { id: endpoint.id });
    expect(res.status).toBe(200);
    const answer = resultOf(res);
    expect(answer).toEqual({ succeeded: true, statusCode: 200, durationMs: expect.any(Number), responseExcerpt: 'pong', error: null });
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    const body = JSON.parse(request!.body);
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_test_/), type: 'ping', createdAt: expect.any(String), orgId: ws.org.id,
      actor: { kind: 'system', id: 'webhook-test' }, data: { message: expect.any(String) }, test: true,
    });
    expect(request!.headers).toMatchObject({ 'workspace-test': 'true', 'workspace-event-type': 'ping', 'workspace-event-id': body.id, 'user-agent': 'WorkspaceAPI-Webhooks/1' });
    const header = String(request!.headers['workspace-signature']);
    expect(await verifyWebhookSignature({ payload: request!.body, header, secret: endpoint.secret })).toBe(true);
    expect(await verifyWebhookSignature({ payload: request!.body, header, secret: 'whsec_someoneelse' })).toBe(false);
    // Not a delivery: no event, no delivery row, not in the endpoint's figures.
    expect(await storedCounts(ws.org.id)).toEqual({ deliveries: 0, events: 0, hours: 0 });
  });

  it('sends a sample of the given type with fixed fake data marked as a test, never the workspace\'s records', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = resultOf(await rpcPost(ctx.app, 'leads.create', { name: 'Real Person', phone: '+442079460018' }, ws.key));
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url });

    const answer = resultOf(await sendTest(ws.key, { id: endpoint.id, type: 'lead.created' }));
    expect(answer.succeeded).toBe(true);
    const [request] = receiver.requests;
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({ type: 'lead.created', test: true, orgId: ws.org.id });
    expect(body.data.object).toMatchObject({ id: expect.stringMatching(/^lead_/), name: expect.any(String) });
    expect(body.data.object.id).not.toBe(lead.id);
    expect(request!.body).not.toContain('Real Person');
    expect(await verifyWebhookSignature({ payload: request!.body, header: String(request!.headers['workspace-signature']), secret: endpoint.secret })).toBe(true);
  });

  it('reports a receiver that answers 500 as not succeeded, with its status and excerpt', async () => {
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver(() => ({ status: 500, body: 'database unavailable' }));
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url });
    expect(resultOf(await sendTest(ws.key, { id: endpoint.id }))).toEqual({
      succeeded: false, statusCode: 500, durationMs: expect.any(Number), responseExcerpt: 'database unavailable', error: null,
    });
  });

  it('reports a receiver that never answers as timed out, within the delivery timeout', async () => {
    const app = createApp({ db: ctx.db, config: { ...TEST_JWT_SECRETS, BODY_LIMIT: '1mb', KEY_CACHE_TTL_MS: 1000, NODE_ENV: 'test', WEBHOOK_TIMEOUT_MS: 300 }, logger: createLogger('silent') });
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver(() => 'hold');
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url });
    const started = Date.now();
    const answer = resultOf(await sendTest(ws.key, { id: endpoint.id }, app));
    expect(answer).toEqual({ succeeded: false, statusCode: null, durationMs: expect.any(Number), responseExcerpt: null, error: 'timed out after 300 ms' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('answers 422 and sends nothing to a URL the URL-safety rules refuse (production: loopback; any: plain http elsewhere)', async () => {
    const production = createApp({ db: ctx.db, config: { ...TEST_JWT_SECRETS, BODY_LIMIT: '1mb', KEY_CACHE_TTL_MS: 1000, NODE_ENV: 'production' }, logger: createLogger('silent') });
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver();
    const loopback = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url.replace('http:', 'https:') });
    expectRefused(await sendTest(ws.key, { id: loopback.id }, production), /private, loopback or link-local/);
    const plainHttp = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'http://hooks.example.com/x' });
    expectRefused(await sendTest(ws.key, { id: plainHttp.id }), /must be https/);
    expect(receiver.requests).toHaveLength(0);
  });

  it("answers 404 for another workspace's endpoint, 400 for an unknown type, 403 without webhooks.update", async () => {
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    receiver = await startReceiver();
    const endpoint = await insertEndpoint(ctx.db, { orgId: b.org.id, ownerKeyId: b.keyId, url: receiver.url });
    expectRpcFailure(await sendTest(a.key, { id: endpoint.id }), 'NOT_FOUND', 'webhooks.sendTestEvent');
    expectRpcFailure(await sendTest(b.key, { id: endpoint.id, type: 'lead.exploded' }), 'BAD_REQUEST', 'webhooks.sendTestEvent');
    const readOnly = await createKey(ctx.db, b.org.id, { scopes: ['webhooks.read'] });
    expectRpcFailure(await sendTest(readOnly.key, { id: endpoint.id }), 'FORBIDDEN', 'webhooks.sendTestEvent');
    expect(receiver.requests).toHaveLength(0);
  });

  it('counts as 10 calls against the key\'s rate limit: the 7th within a minute of a 60-per-minute key is refused with 429', async () => {
    const limited = createTestContext({ rateLimiter: memoryLimiter({ perKey: 60 }) });
    try {
      const ws = await createWorkspace(limited.db);
      receiver = await startReceiver();
      const endpoint = await insertEndpoint(limited.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url });
      for (let i = 0; i < 6; i++) expect((await sendTest(ws.key, { id: endpoint.id }, limited.app)).status).toBe(200);
      const refused = await sendTest(ws.key, { id: endpoint.id }, limited.app);
      expect(refused.status).toBe(429);
      expect(receiver.requests).toHaveLength(6);
    } finally {
      await limited.close();
    }
  });
});
