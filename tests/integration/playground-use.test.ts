import request from 'supertest';
import { createSecretKey } from 'node:crypto';
import { createTestContext, testDatabaseUrl } from '../helpers/test-app';
import { createLead, createMember, createOrg } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf, errorOf } from '../helpers/rpc';
import { cliJson, cli, cliWithEnv, pollUntil } from '../helpers/cli-harness';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { signPlaygroundToken } from '../../src/auth/playground-token';
import { TABLES } from '../../src/db/tables';
import type { OrgTier } from '../../src/db/orgs';
import * as orgsQueries from '../../src/db/orgs';
import * as membersQueries from '../../src/db/members';

const ctx = createTestContext();
afterAll(() => ctx.close());

const keys = testJwtKeys;

/** A developer's workspace with one lead, and a test token issued through the endpoint. */
async function tokenFor(options: { tier?: OrgTier; scopes?: string[] } = {}) {
  const org = await createOrg(ctx.db, { tier: options.tier });
  const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
  const lead = await createLead(ctx.db, org.id);
  const session = signMemberSession(keys.session, { memberId: member.id, orgId: org.id }).token;
  const res = await request(ctx.app)
    .post('/api/v1/playground/token')
    .set('Authorization', `Bearer ${session}`)
    .send(options.scopes ? { scopes: options.scopes } : undefined);
  expect(res.status).toBe(200);
  return { org, member, lead, session, token: res.body.token as string };
}

function restList(token: string) {
  return request(ctx.app).get('/api/v1/leads').set('Authorization', `Bearer ${token}`);
}

describe('a playground token on the action endpoints and the REST list', () => {
  it('reads leads.getAll (200) and GET /api/v1/leads (200) of its own workspace only', async () => {
    const { token, lead } = await tokenFor();
    await tokenFor(); // another workspace's lead must not show

    const rpc = await rpcGet(ctx.app, 'leads.getAll', {}, token);
    const rest = await restList(token);

    expect(rpc.status).toBe(200);
    expect(resultOf(rpc).data.map((l: { id: string }) => l.id)).toEqual([lead.id]);
    expect(rest.status).toBe(200);
    expect(rest.body.data.map((l: { id: string }) => l.id)).toEqual([lead.id]);
  });

  it('is refused leads.create with 403 missing scope when it has only the default read scopes, and nothing is stored', async () => {
    const { token, org } = await tokenFor();
    const res = await rpcPost(ctx.app, 'leads.create', { name: 'Ada', phone: '+442079460018' }, token);

    expect(res.status).toBe(403);
    expect(errorOf(res).message).toBe('missing scope: leads.create');
    const rows = await ctx.db(TABLES.leads).where({ org_id: org.id }).count<{ n: string }[]>({ n: '*' });
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it('creates a lead when leads.create was asked for', async () => {
    const { token, org } = await tokenFor({ scopes: ['leads.read', 'leads.create'] });
    const res = await rpcPost(ctx.app, 'leads.create', { name: 'Ada', phone: '+442079460018' }, token);

    expect(res.status).toBe(200);
    expect(await ctx.db(TABLES.leads).where({ org_id: org.id, id: resultOf(res).id }).first()).toBeDefined();
  });

  it('is refused the action endpoints with 403 in a FREE-tier workspace, while the REST list (no tier rule) answers', async () => {
    const { token } = await tokenFor({ tier: 'FREE' });

    const rpc = await rpcGet(ctx.app, 'leads.getAll', {}, token);
    expect(rpc.status).toBe(403);
    expect(errorOf(rpc).message).toMatch(/needs the BUSINESS tier .*; this workspace is on FREE$/);
    expect((await restList(token)).status).toBe(200);
  });
});

describe('a playground token refused with 401', () => {
  const now = () => Math.floor(Date.now() / 1000);

  async function expect401(token: string, message: RegExp) {
    const rpc = await rpcGet(ctx.app, 'leads.getAll', {}, token);
    expect(rpc.status).toBe(401);
    expect(errorOf(rpc).message).toMatch(message);
    expect(rpc.headers['www-authenticate']).toBe('Bearer realm="workspace-api"');
    expect((await restList(token)).status).toBe(401);
  }

  it('when expired (signed with the right secret an hour and a second ago)', async () => {
    const { member, org } = await tokenFor();
    const old = signPlaygroundToken(keys.token, { memberId: member.id, orgId: org.id, scopes: ['leads.read'] }, Date.now() - 3601_000);
    await expect401(old.token, /^The playground token has expired$/);
  });

  it('when its payload was changed to grant more scopes', async () => {
    const { token, member, org } = await tokenFor();
    const [header, , signature] = token.split('.');
    const payload = { sub: member.id, org: org.id, typ: 'playground', scopes: ['leads.delete'], jti: 'tok_x', iat: now(), exp: now() + 3600 };
    await expect401(`${header}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`, /^Invalid playground token$/);
  });

  it('when signed with another secret', async () => {
    const { member, org } = await tokenFor();
    const other = createSecretKey(Buffer.from('not-the-token-secret-but-long-enough-0000'));
    await expect401(signPlaygroundToken(other, { memberId: member.id, orgId: org.id, scopes: ['leads.read'] }).token, /^Invalid playground token$/);
  });

  it('when unsigned (alg: none)', async () => {
    const { member, org } = await tokenFor();
    const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const payload = { sub: member.id, org: org.id, typ: 'playground', scopes: ['leads.read'], jti: 'tok_x', iat: now(), exp: now() + 3600 };
    await expect401(`${part({ alg: 'none', typ: 'JWT' })}.${part(payload)}.`, /^Invalid playground token$/);
  });

  it('when a member session is sent to an action endpoint', async () => {
    const { session } = await tokenFor();
    await expect401(session, /^Invalid playground token$/);
  });
});

describe('a live playground token re-checks the member and the workspace on every use', () => {
  async function forbiddenWithin(token: string): Promise<{ status: number; message: string; elapsedMs: number }> {
    const started = Date.now();
    const res = await pollUntil(() => rpcGet(ctx.app, 'leads.getAll', {}, token), (r) => r.status !== 200, 3000);
    return { status: res.status, message: res.status === 200 ? '' : errorOf(res).message, elapsedMs: Date.now() - started };
  }

  it('stops within about a second (403) once DEVELOPER is removed from the member', async () => {
    const { token, org, member } = await tokenFor();
    expect((await rpcGet(ctx.app, 'leads.getAll', {}, token)).status).toBe(200);

    await membersQueries.setPermissions(ctx.db, org.id, member.id, []);
    const result = await forbiddenWithin(token);

    expect(result.status).toBe(403);
    expect(result.message).toMatch(/lacks the DEVELOPER permission/);
    expect(result.elapsedMs).toBeLessThan(1500);
    expect((await restList(token)).status).toBe(403);
  });

  it('stops within about a second (403) once DEVELOPER_API is removed from the workspace', async () => {
    const { token, org } = await tokenFor();
    expect((await rpcGet(ctx.app, 'leads.getAll', {}, token)).status).toBe(200);

    await orgsQueries.setAccess(ctx.db, org.id, { features: [] });
    const result = await forbiddenWithin(token);

    expect(result.status).toBe(403);
    expect(result.message).toMatch(/lacks the DEVELOPER_API feature/);
    expect(result.elapsedMs).toBeLessThan(1500);
  });
});

describe('CLI member token', () => {
  it('prints a member session that issues a playground token', async () => {
    const org = await createOrg(ctx.db);
    const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
    const printed = await cliJson<{ token: string; expiresAt: string }>('member', 'token', '--member', member.id);

    expect(Date.parse(printed.expiresAt)).toBeGreaterThan(Date.now() + 11 * 3600_000);
    const res = await request(ctx.app).post('/api/v1/playground/token').set('Authorization', `Bearer ${printed.token}`);
    expect(res.status).toBe(200);
    expect(res.body.scopes).toContain('leads.read');
  });

  it('fails with exit code 1 for an unknown member and 2 without --member', async () => {
    const unknown = await cli('member', 'token', '--member', 'mem_nobody');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/no member mem_nobody/);
    expect((await cli('member', 'token')).code).toBe(2);
  });

  it.each([undefined, 'test'])('with DATABASE_URL, NODE_ENV %s and no SESSION_SECRET exits 1 naming it, signing nothing', async (NODE_ENV) => {
    const org = await createOrg(ctx.db);
    const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
    const run = await cliWithEnv({ DATABASE_URL: testDatabaseUrl(), NODE_ENV }, 'member', 'token', '--member', member.id);
    expect([run.code, run.out]).toEqual([1, '']);
    expect(run.err).toMatch(/^Invalid environment variables? SESSION_SECRET[:,]/);
    // Where both secrets are required (not in test mode), both are named in the one message.
    if (NODE_ENV === undefined) expect(run.err).toMatch(/\n {2}TOKEN_SECRET: required with DATABASE_URL/);
  });
});
