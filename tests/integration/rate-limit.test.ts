import request from 'supertest';
import { createTestContext, type TestContext } from '../helpers/test-app';
import { createKey, createMember, createOrg, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost } from '../helpers/rpc';
import { expectRpcError } from '../helpers/rpc-edge-fixtures';
import { listLeads } from '../helpers/leads-rest';
import { expectNoRateLimitFields, memoryLimiter, rateLimitOf } from '../helpers/rate-limit';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createRateLimiterFromConfig } from '../../src/ratelimit/rate-limiter-from-config';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { TABLES } from '../../src/db/tables';

/**
 * Per-key rate limits on the action endpoints and the REST list (in-memory counters; the Redis
 * store is in rate-limit-redis.test.ts, failed authentications in rate-limit-failed-auth.test.ts).
 */

const silent = createLogger('silent');
let three: TestContext; // RATE_LIMIT_PER_MINUTE=3, as the service builds it from its environment
const tiers = createTestContext({ rateLimiter: memoryLimiter() }); // the tier defaults
const off = createTestContext();

beforeAll(async () => {
  const limiter = await createRateLimiterFromConfig(loadConfig({ RATE_LIMIT_PER_MINUTE: '3' }), silent);
  // No key cache, so a key expired in the database is refused on its next call.
  three = createTestContext({ rateLimiter: limiter, bodyLimit: '4kb', keyCacheTtlMs: 0 });
});
afterAll(async () => {
  await three.close();
  await tiers.close();
  await off.close();
});

async function leadCount(orgId: string): Promise<number> {
  const row = await three.db(TABLES.leads).where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

describe('the RateLimit fields on answers (RATE_LIMIT_PER_MINUTE=3)', () => {
  it('answers "key";q=3;w=60 with r counting down 2, 1, 0 and t within the minute, never growing', async () => {
    const ws = await createWorkspace(three.db);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await rpcGet(three.app, 'leads.getAll', {}, ws.key));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200]);
    const fields = answers.map(rateLimitOf);
    expect(fields.map(({ name, q, w }) => ({ name, q, w }))).toEqual(Array(3).fill({ name: 'key', q: 3, w: 60 }));
    expect(fields.map((f) => f.r)).toEqual([2, 1, 0]);
    for (const { t } of fields) expect(t).toBeGreaterThanOrEqual(1), expect(t).toBeLessThanOrEqual(60);
    expect(fields[2]!.t).toBeLessThanOrEqual(fields[0]!.t);
    for (const res of answers) expect(res.headers['retry-after']).toBeUndefined();
  });

  it('carries them on errors after authentication too (404 unknown procedure, 400 bad input, 403 missing scope), each counted', async () => {
    const org = await createOrg(three.db);
    const { key } = await createKey(three.db, org.id, { scopes: ['leads.read'] });
    const notFound = await rpcGet(three.app, 'leads.nope', undefined, key);
    const badInput = await rpcGet(three.app, 'leads.getAll', { status: 'NEW' }, key);
    const noScope = await rpcPost(three.app, 'leads.create', { name: 'Ada', phone: '+442079460018' }, key);
    expect([notFound.status, badInput.status, noScope.status]).toEqual([404, 400, 403]);
    expect([notFound, badInput, noScope].map((res) => rateLimitOf(res).r)).toEqual([2, 1, 0]);
  });

  it('sends no RateLimit fields on a 401 when failed authentications are not limited', async () => {
    const res = await request(tiers.app).get('/api/v1/rpc/leads.getAll').set('Authorization', 'Bearer wsk_nope');
    expectRpcError(res, 'UNAUTHORIZED', 'leads.getAll');
    expectNoRateLimitFields(res);
  });
});

describe('past the limit', () => {
  it('answers 429 TOO_MANY_REQUESTS in the envelope with Retry-After = t and r=0, and does not run the handler', async () => {
    const ws = await createWorkspace(three.db);
    for (let i = 0; i < 3; i++) expect((await rpcGet(three.app, 'leads.getAll', {}, ws.key)).status).toBe(200);

    const res = await rpcPost(three.app, 'leads.create', { name: unique('Late'), phone: '+442079460018' }, ws.key);

    const error = expectRpcError(res, 'TOO_MANY_REQUESTS', 'leads.create');
    expect(error.message).toMatch(/^Rate limit of 3 requests per minute reached for this API key: retry in \d+ s$/);
    const fields = rateLimitOf(res);
    expect(fields).toMatchObject({ name: 'key', q: 3, w: 60, r: 0 });
    expect(res.headers['retry-after']).toBe(String(fields.t));
    expect(await leadCount(ws.org.id)).toBe(0);
  });

  it('keeps every key on its own budget: key A exhausted, key B of the same workspace still at r=2', async () => {
    const ws = await createWorkspace(three.db);
    const other = await createKey(three.db, ws.org.id);
    for (let i = 0; i < 4; i++) await rpcGet(three.app, 'leads.getAll', {}, ws.key);
    expect((await rpcGet(three.app, 'leads.getAll', {}, ws.key)).status).toBe(429);

    const res = await rpcGet(three.app, 'leads.getAll', {}, other.key);
    expect(res.status).toBe(200);
    expect(rateLimitOf(res).r).toBe(2);
  });

  it('counts the REST list against the same budget and answers its 429 in the REST error body', async () => {
    const ws = await createWorkspace(three.db);
    await rpcGet(three.app, 'leads.getAll', {}, ws.key);
    await rpcGet(three.app, 'leads.getAll', {}, ws.key);
    const last = await listLeads(three.app, ws.key);
    expect(last.status).toBe(200);
    expect(rateLimitOf(last)).toMatchObject({ name: 'key', q: 3, r: 0 });

    const res = await listLeads(three.app, ws.key);
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: { code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/^Rate limit of 3 requests per minute/) } });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(rateLimitOf(res).r).toBe(0);
  });

  it('counts a playground token on its own budget, apart from the member\'s API key', async () => {
    const org = await createOrg(three.db);
    const member = await createMember(three.db, org.id, ['DEVELOPER']);
    const { key } = await createKey(three.db, org.id, { memberId: member.id });
    const session = signMemberSession(testJwtKeys.session, { memberId: member.id, orgId: org.id }).token;
    const issued = await request(three.app).post('/api/v1/playground/token').set('Authorization', `Bearer ${session}`);
    expect(issued.status).toBe(200);
    const token = issued.body.token as string;
    for (let i = 0; i < 3; i++) await listLeads(three.app, key);

    const first = await listLeads(three.app, token);
    expect(first.status).toBe(200);
    expect(rateLimitOf(first)).toMatchObject({ name: 'key', r: 2 });
    await listLeads(three.app, token);
    await listLeads(three.app, token);
    const refused = await rpcGet(three.app, 'leads.getAll', {}, token);
    expect(expectRpcError(refused, 'TOO_MANY_REQUESTS', 'leads.getAll').message).toMatch(/for this playground token/);
  });
});

describe('where the rate limit stands in the order of checks', () => {
  it('answers 413 (not 429) to an exhausted key sending an oversized body: the body limit comes first', async () => {
    const ws = await createWorkspace(three.db);
    for (let i = 0; i < 4; i++) await rpcGet(three.app, 'leads.getAll', {}, ws.key);
    const res = await rpcPost(three.app, 'leads.create', { name: 'Big', phone: '+442079460018', notes: 'x'.repeat(5000) }, ws.key);
    expectRpcError(res, 'PAYLOAD_TOO_LARGE', 'leads.create');
    expectNoRateLimitFields(res);
  });

  it('answers 401 (not 429) to an exhausted key once it has expired: authentication comes first', async () => {
    const ws = await createWorkspace(three.db);
    for (let i = 0; i < 4; i++) await rpcGet(three.app, 'leads.getAll', {}, ws.key);
    await three.db(TABLES.apiKeys).where({ org_id: ws.org.id, id: ws.keyId }).update({ expires_at: new Date(Date.now() - 60_000) });
    expectRpcError(await rpcGet(three.app, 'leads.getAll', {}, ws.key), 'UNAUTHORIZED', 'leads.getAll');
  });

  it('answers a FREE key 403 tier while within its budget and 429 (not 403) past it: the rate limit comes before the tier', async () => {
    const ws = await createWorkspace(three.db, { tier: 'FREE' });
    const within = [];
    for (let i = 0; i < 3; i++) within.push(await rpcGet(three.app, 'leads.getAll', {}, ws.key));
    for (const res of within) expect(expectRpcError(res, 'FORBIDDEN', 'leads.getAll').message).toMatch(/BUSINESS tier/);
    expect(within.map((res) => rateLimitOf(res).r)).toEqual([2, 1, 0]);
    expectRpcError(await rpcGet(three.app, 'leads.getAll', {}, ws.key), 'TOO_MANY_REQUESTS', 'leads.getAll');
  });
});

describe('the tiers\' own limits (no RATE_LIMIT_PER_MINUTE)', () => {
  it.each([['FREE', 60], ['PRO', 600], ['BUSINESS', 1200]] as const)('gives a %s key q=%d per minute on the REST list', async (tier, quota) => {
    const ws = await createWorkspace(tiers.db, { tier });
    const res = await listLeads(tiers.app, ws.key);
    expect(res.status).toBe(200);
    expect(rateLimitOf(res)).toMatchObject({ name: 'key', q: quota, w: 60, r: quota - 1 });
  });

  it('refuses a FREE key its 61st call of the minute, while a PRO key goes on', async () => {
    const free = await createWorkspace(tiers.db, { tier: 'FREE' });
    const pro = await createWorkspace(tiers.db, { tier: 'PRO' });
    for (let i = 0; i < 60; i++) expect((await listLeads(tiers.app, free.key, { pageSize: 1 })).status).toBe(200);
    for (let i = 0; i < 61; i++) expect((await listLeads(tiers.app, pro.key, { pageSize: 1 })).status).toBe(200);

    expect((await listLeads(tiers.app, free.key, { pageSize: 1 })).status).toBe(429);
    expect(rateLimitOf(await listLeads(tiers.app, pro.key, { pageSize: 1 })).r).toBe(600 - 62);
  });
});

describe('rate limiting off (RATE_LIMIT_PER_MINUTE=0)', () => {
  it('builds no limiter, so the app answers a FREE key past its tier limit, sending no RateLimit fields', async () => {
    const limiter = await createRateLimiterFromConfig(loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }), silent);
    expect(limiter).toBeUndefined();
    const ws = await createWorkspace(off.db, { tier: 'FREE' });
    const statuses = new Set<number>();
    for (let i = 0; i < 61; i++) {
      const res = await listLeads(off.app, ws.key, { pageSize: 1 });
      statuses.add(res.status);
      expectNoRateLimitFields(res);
    }
    expect([...statuses]).toEqual([200]);
  });

  it('does not limit failed authentications either', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 40; i++) statuses.add((await rpcGet(off.app, 'leads.getAll', {}, `wsk_guess${i}`)).status);
    expect([...statuses]).toEqual([401]);
  });
});

describe('the OpenAPI document', () => {
  it('lists the 429 of every action endpoint and of the REST list, with Retry-After and the RateLimit fields', async () => {
    const doc = (await request(off.app).get('/api/v1/openapi.json')).body;
    const operations = [doc.paths['/api/v1/leads'].get, doc.paths['/api/v1/rpc/leads.getAll'].get, doc.paths['/api/v1/rpc/leads.create'].post];
    for (const op of operations) {
      expect(op.responses['429'].description).toMatch(/^`TOO_MANY_REQUESTS`: /);
      expect(Object.keys(op.responses['429'].headers)).toEqual(['RateLimit-Policy', 'RateLimit', 'Retry-After']);
    }
  });
});
