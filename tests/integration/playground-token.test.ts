import request from 'supertest';
import jwt from 'jsonwebtoken';
import { createTestContext, type TestContext } from '../helpers/test-app';
import { describeWithRedis, TEST_REDIS_URL, uniqueRedisPrefix } from '../helpers/rate-limit';
import { createRateLimiterFromConfig } from '../../src/ratelimit/rate-limiter-from-config';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { createKey, createMember, createOrg } from '../helpers/factories';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { KNOWN_SCOPES } from '../../src/auth/scopes';
import { MAX_SCOPES } from '../../src/procedures/shared/scope-fields';
import { PLAYGROUND_MINTS_PER_MINUTE } from '../../src/http/playground-mint-limit';

const ctx = createTestContext();
afterAll(() => ctx.close());

const keys = testJwtKeys;
const READ_SCOPES = [...KNOWN_SCOPES].filter((s) => s.endsWith('.read')).sort();

/** A developer in a workspace with DEVELOPER_API, and a member session for them. */
async function developer(options: { permissions?: string[]; features?: string[] } = {}) {
  const org = await createOrg(ctx.db, { features: options.features ?? ['DEVELOPER_API'] });
  const member = await createMember(ctx.db, org.id, options.permissions ?? ['DEVELOPER']);
  const session = signMemberSession(keys.session, { memberId: member.id, orgId: org.id }).token;
  return { org, member, session };
}

function issue(authorization: string | undefined, body?: unknown) {
  let req = request(ctx.app).post('/api/v1/playground/token');
  if (authorization !== undefined) req = req.set('Authorization', authorization);
  return body === undefined ? req : req.set('Content-Type', 'application/json').send(JSON.stringify(body));
}

describe('POST /api/v1/playground/token: issuing', () => {
  it('answers a token valid exactly one hour, with every exposed read scope by default', async () => {
    const dev = await developer();
    const sent = Date.now();
    const res = await issue(`Bearer ${dev.session}`);
    const answered = Date.now();

    expect(res.status).toBe(200);
    expect(res.body.scopes).toEqual(READ_SCOPES);
    expect(READ_SCOPES).toContain('leads.read');
    expect(READ_SCOPES.some((s) => !s.endsWith('.read'))).toBe(false);
    // An hour after it was issued, in whole seconds (a JWT's times are seconds: issued at the second begun).
    const expiresAt = Date.parse(res.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(sent / 1000) * 1000 + 3600_000);
    expect(expiresAt).toBeLessThanOrEqual(answered + 3600_000);
    const claims = jwt.decode(res.body.token) as Record<string, any>;
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims).toMatchObject({ sub: dev.member.id, org: dev.org.id, typ: 'playground', scopes: READ_SCOPES });
    expect(claims.exp * 1000).toBe(Date.parse(res.body.expiresAt));
  });

  it('answers the write scopes asked for in the body, de-duplicated', async () => {
    const dev = await developer();
    const res = await issue(`Bearer ${dev.session}`, { scopes: ['leads.read', 'leads.create', 'leads.create'] });

    expect(res.status).toBe(200);
    expect(res.body.scopes).toEqual(['leads.read', 'leads.create']);
    expect((jwt.decode(res.body.token) as any).scopes).toEqual(['leads.read', 'leads.create']);
  });

  it.each([
    ['a misspelt scope', { scopes: ['leads.read', 'leads.creat'] }, ['scopes', 1]],
    ['an app-only scope', { scopes: ['apiKeys.read'] }, ['scopes', 0]],
    ['an empty scope list', { scopes: [] }, ['scopes']],
    ['an unknown field', { scope: ['leads.read'] }, ['scope']],
    [`${MAX_SCOPES + 1} scopes (one over MAX_SCOPES)`, { scopes: Array.from({ length: MAX_SCOPES + 1 }, () => 'leads.read') }, ['scopes']],
  ])('answers 400 with the REST error body for %s', async (_label, body, path) => {
    const dev = await developer();
    const res = await issue(`Bearer ${dev.session}`, body);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.issues).toEqual([expect.objectContaining({ path })]);
  });

  it('answers 400 for malformed JSON and 415 for a body that is not JSON', async () => {
    const dev = await developer();
    const malformed = await issue(`Bearer ${dev.session}`).set('Content-Type', 'application/json').send('{"scopes": [');
    const text = await issue(`Bearer ${dev.session}`).set('Content-Type', 'text/plain').send('{"scopes":["leads.create"]}');

    expect(malformed.status).toBe(400);
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('POST /api/v1/playground/token: 403 FORBIDDEN', () => {
  it('refuses a member without the DEVELOPER permission, saying so', async () => {
    const dev = await developer({ permissions: [] });
    const res = await issue(`Bearer ${dev.session}`);

    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: 'FORBIDDEN', message: expect.stringMatching(/lacks the DEVELOPER permission/) });
  });

  it('refuses a workspace without the DEVELOPER_API feature, saying so', async () => {
    const dev = await developer({ features: [] });
    const res = await issue(`Bearer ${dev.session}`);

    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/workspace lacks the DEVELOPER_API feature/);
  });
});

describe('POST /api/v1/playground/token: 401 UNAUTHORIZED', () => {
  it('refuses an API key of a developer, naming the member session it needs', async () => {
    const dev = await developer();
    const { key } = await createKey(ctx.db, dev.org.id, { memberId: dev.member.id });
    const res = await issue(`Bearer ${key}`);

    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/API key cannot open the developer page/);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="workspace-api"');
  });

  it('refuses a playground token used as a session', async () => {
    const dev = await developer();
    const { token } = (await issue(`Bearer ${dev.session}`)).body;
    const res = await issue(`Bearer ${token}`);

    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({ code: 'UNAUTHORIZED', message: 'Invalid member session' });
  });

  it('refuses a missing header, an expired session and the session of a deleted member', async () => {
    const dev = await developer();
    const expired = signMemberSession(keys.session, { memberId: dev.member.id, orgId: dev.org.id }, Date.now() - 13 * 3600_000).token;
    const ghost = signMemberSession(keys.session, { memberId: 'mem_gone', orgId: dev.org.id }).token;

    expect((await issue(undefined)).status).toBe(401);
    expect((await issue(`Bearer ${expired}`)).body.error.message).toBe('The member session has expired');
    expect((await issue(`Bearer ${ghost}`)).status).toBe(401);
  });

  it('checks the session before reading the body: an anonymous malformed body is a 401, not a 400', async () => {
    const res = await issue(undefined).set('Content-Type', 'application/json').send('{oops');
    expect(res.status).toBe(401);
  });
});

describe('POST /api/v1/playground/token: 429 TOO_MANY_REQUESTS (finding 5)', () => {
  async function mintUpToTheLimit(session: string, body?: unknown) {
    for (let i = 0; i < PLAYGROUND_MINTS_PER_MINUTE; i++) await issue(`Bearer ${session}`, body);
  }

  it(`answers the member's token ${PLAYGROUND_MINTS_PER_MINUTE + 1} within a minute with 429, Retry-After and the REST error body`, async () => {
    const dev = await developer();
    for (let i = 0; i < PLAYGROUND_MINTS_PER_MINUTE; i++) {
      const res = await issue(`Bearer ${dev.session}`);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe(`"playground-token";q=${PLAYGROUND_MINTS_PER_MINUTE};w=60`);
    }
    const refused = await issue(`Bearer ${dev.session}`);

    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body).toEqual({ error: { code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/playground tokens.*retry in \d+ s/) } });
    expect(refused.headers['ratelimit']).toMatch(/^"playground-token";r=0;t=\d+$/);
  });

  it('keeps counting each member apart: another member of the same workspace still gets a token', async () => {
    const dev = await developer();
    await mintUpToTheLimit(dev.session);
    const colleague = await createMember(ctx.db, dev.org.id, ['DEVELOPER']);
    const session = signMemberSession(keys.session, { memberId: colleague.id, orgId: dev.org.id }).token;

    expect((await issue(`Bearer ${dev.session}`)).status).toBe(429);
    expect((await issue(`Bearer ${session}`)).status).toBe(200);
  });

  it('counts refused bodies too and answers 429 before reading the body', async () => {
    const dev = await developer();
    await mintUpToTheLimit(dev.session, { scopes: ['leads.creat'] });
    const res = await issue(`Bearer ${dev.session}`).set('Content-Type', 'application/json').send('{"scopes": [');

    expect(res.status).toBe(429);
  });

  it('does not count a caller who is not a developer (403 first)', async () => {
    const dev = await developer({ permissions: [] });
    await mintUpToTheLimit(dev.session);
    expect((await issue(`Bearer ${dev.session}`)).status).toBe(403);
  });
});

describeWithRedis('playground mints at two instances sharing Redis', () => {
  const prefix = uniqueRedisPrefix();
  const instances: TestContext[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const limiter = await createRateLimiterFromConfig(loadConfig({ REDIS_URL: TEST_REDIS_URL }), createLogger('silent'), { redisKeyPrefix: prefix });
      instances.push(createTestContext({ rateLimiter: limiter }));
    }
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
  });

  it(`allows a member ${PLAYGROUND_MINTS_PER_MINUTE} tokens a minute in all, not ${PLAYGROUND_MINTS_PER_MINUTE} at each instance`, async () => {
    const dev = await developer();
    const mint = (i: number) => request(instances[i % 2]!.app).post('/api/v1/playground/token').set('Authorization', `Bearer ${dev.session}`);
    const statuses: number[] = [];
    for (let i = 0; i < PLAYGROUND_MINTS_PER_MINUTE + 2; i++) statuses.push((await mint(i)).status);
    expect(statuses).toEqual([...Array(PLAYGROUND_MINTS_PER_MINUTE).fill(200), 429, 429]);
  });
});
