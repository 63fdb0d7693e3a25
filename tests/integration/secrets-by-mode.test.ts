import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJwtKeys, EMBEDDED_SECRETS_FILE } from '../../src/auth/secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { signPlaygroundToken } from '../../src/auth/playground-token';
import { createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { createMember, createOrg, createKey } from '../helpers/factories';
import { killIfRunning, startServer, stopServer, type ServerProcess } from '../helpers/server-process';
import { TEST_JWT_SECRETS } from '../helpers/test-secrets';

/**
 * Every mode a process can be started in, through the real entry point: no secret the repository
 * ever held signs or verifies anything, a missing secret is either made safely or stops the
 * process, and the webhook URL policy is the production one unless NODE_ENV asks otherwise.
 */

/** The development defaults this repository once published: whoever read them can sign with them. */
const FORMER_PUBLISHED = createJwtKeys({ SESSION_SECRET: 'dev-only-session-secret-change-me-0000000000', TOKEN_SECRET: 'dev-only-token-secret-change-me-00000000000000' });

const db = createTestDb(2);
afterAll(() => db.destroy());

async function developerWorkspace() {
  const org = await createOrg(db, { features: ['DEVELOPER_API'] });
  const member = await createMember(db, org.id, ['DEVELOPER']);
  const { key } = await createKey(db, org.id);
  return { org, member, key };
}

async function call(port: number, method: 'GET' | 'POST', path: string, auth: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { Authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.text() };
}

/** What an attacker holding the formerly published secrets gets, and whether a private webhook URL is taken. */
async function probe(port: number) {
  const ws = await developerWorkspace();
  const forgedSession = signMemberSession(FORMER_PUBLISHED.session, { memberId: ws.member.id, orgId: ws.org.id }).token;
  const forgedToken = signPlaygroundToken(FORMER_PUBLISHED.token, { memberId: ws.member.id, orgId: ws.org.id, scopes: ['leads.create'] }).token;
  const keyMinted = await call(port, 'POST', '/developer/api/keys', forgedSession, { name: 'forged', scopes: ['leads.read'] });
  const leadCreated = await call(port, 'POST', '/api/v1/rpc/leads.create', forgedToken, { json: { name: 'Forged', phone: '+442079460000' } });
  const privateWebhook = await call(port, 'POST', '/api/v1/rpc/webhooks.create', ws.key, { json: { url: 'https://10.0.0.1/internal', events: ['lead.created'] } });
  return { keyMinted: keyMinted.status, leadCreated: leadCreated.status, privateWebhook: privateWebhook.status };
}

/** The start's one mode line (JSON, or pino-pretty's text under NODE_ENV=development), as its message. */
function modeLines(server: ServerProcess): string[] {
  // eslint-disable-next-line no-control-regex
  return server.lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, '')).filter((l) => /mode: NODE_ENV /.test(l)).map((l) => /(mode: NODE_ENV [^"\n]*)/.exec(l)![1]!);
}

describe('a service started with DATABASE_URL', () => {
  it.each([
    ['unset', undefined],
    ['production', 'production'],
  ])('with NODE_ENV %s and no SESSION_SECRET exits 1 with one line naming it, before listening', async (_label, NODE_ENV) => {
    const started = startServer({ NODE_ENV, DATABASE_URL: testDatabaseUrl(), TOKEN_SECRET: TEST_JWT_SECRETS.TOKEN_SECRET });
    await expect(started).rejects.toThrow(/exited 1 before listening:\nInvalid environment variable SESSION_SECRET: required with DATABASE_URL[^\n]*\n?$/);
  }, 60_000);

  it('without either secret and with a bad PORT exits 1 naming all three in one message, before listening', async () => {
    const started = startServer({ NODE_ENV: undefined, DATABASE_URL: testDatabaseUrl(), PORT: 'eighty' });
    await expect(started).rejects.toThrow(
      /exited 1 before listening:\nInvalid environment variables PORT, SESSION_SECRET, TOKEN_SECRET:\n {2}PORT: [^\n]*\n {2}SESSION_SECRET: required with DATABASE_URL[^\n]*\n {2}TOKEN_SECRET: required with DATABASE_URL[^\n]*\n?$/,
    );
  }, 60_000);

  it.each([
    ['unset, with its own secrets', { NODE_ENV: undefined, ...TEST_JWT_SECRETS }, { privateWebhook: 400, mode: /^mode: NODE_ENV unset \(production defaults\), no safe default relaxed$/ }],
    ['production, with its own secrets', { NODE_ENV: 'production', ...TEST_JWT_SECRETS }, { privateWebhook: 400, mode: /^mode: NODE_ENV production, no safe default relaxed$/ }],
    ['development, without secrets', { NODE_ENV: 'development' }, { privateWebhook: 200, mode: /^mode: NODE_ENV development, relaxed: webhook URLs may be http:\/\/localhost .*; SESSION_SECRET\/TOKEN_SECRET unset: random per process, so member sessions and playground tokens end at a restart and work on this instance only$/ }],
    ['test, without secrets', { NODE_ENV: 'test' }, { privateWebhook: 200, mode: /^mode: NODE_ENV test, relaxed: webhook URLs .*; SESSION_SECRET\/TOKEN_SECRET unset: random per process/ }],
  ])('with NODE_ENV %s refuses sessions and tokens signed with the published secrets, and logs its relaxations once', async (_label, env, expected) => {
    let server: ServerProcess | undefined;
    try {
      server = await startServer({ ...env, DATABASE_URL: testDatabaseUrl() });
      expect(await probe(server.port)).toEqual({ keyMinted: 401, leadCreated: 401, privateWebhook: expected.privateWebhook });
      expect(modeLines(server)).toEqual([expect.stringMatching(expected.mode)]);
    } finally {
      killIfRunning(server);
    }
  }, 60_000);
});

describe('a service started on the embedded database with no NODE_ENV and no secrets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wsapi-embedded-secrets-'));
  // mkdtemp makes 0700; as root the embedded PostgreSQL runs as `postgres`, which must reach data/.
  chmodSync(dir, 0o711);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('signs with random secrets it keeps in its data directory (0600), and refuses the published ones', async () => {
    let server: ServerProcess | undefined;
    try {
      server = await startServer({ NODE_ENV: undefined, EMBEDDED_DB_DIR: join(dir, 'data') });
      const file = join(dir, 'data', EMBEDDED_SECRETS_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const stored = createJwtKeys(JSON.parse(readFileSync(file, 'utf8')));
      expect(modeLines(server)).toEqual(['mode: NODE_ENV unset (production defaults), no safe default relaxed']);

      // The demo workspace's developer: a session signed with the stored secret opens the developer API.
      const demo = JSON.parse(await server.waitForLine(/"msg":"demo workspace /)) as { orgId: string; memberId: string };
      const me = async (keys: typeof stored) => {
        const session = signMemberSession(keys.session, { memberId: demo.memberId, orgId: demo.orgId }).token;
        return (await call(server!.port, 'GET', '/developer/api/me', session)).status;
      };
      expect({ stored: await me(stored), published: await me(FORMER_PUBLISHED) }).toEqual({ stored: 200, published: 401 });
    } finally {
      await stopServer(server, join(dir, 'data'));
    }
  }, 120_000);
});
