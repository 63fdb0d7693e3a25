import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, createTestDb, testDatabaseUrl, type TestContext } from '../helpers/test-app';
import { createKey, createMember, createOrg, unique } from '../helpers/factories';
import { createLogger } from '../../src/logger';
import { testJwtKeys } from '../helpers/test-secrets';
import { signPlaygroundToken } from '../../src/auth/playground-token';
import { signMemberSession } from '../../src/auth/member-session';
import { createCacheInvalidation } from '../../src/auth/key-invalidation';
import { createNotificationListener, type ListenerOptions, type NotificationListener } from '../../src/live/notification-listener';
import * as apiKeysQueries from '../../src/db/api-keys';
import * as orgsQueries from '../../src/db/orgs';
import { cli } from '../helpers/cli-harness';
import type { Db } from '../../src/db/knex';
import { sleep, until } from '../helpers/poll';

const opened: { listener: NotificationListener; ctx: TestContext }[] = [];
afterAll(async () => {
  for (const { listener, ctx } of opened) {
    await listener.stop();
    await ctx.close();
  }
});

/** One instance of the service: its own pool, its own LISTEN connection, its own caches. */
function instance(options: { keyCacheTtlMs?: number } & Partial<ListenerOptions> = {}) {
  const db = createTestDb();
  const applicationName = unique('wsapi-listener');
  const logLines: { level: number; msg: string }[] = [];
  const logger = createLogger('info', { destination: { write: (line: string) => void logLines.push(JSON.parse(line)) } });
  const listener = createNotificationListener({ url: testDatabaseUrl(), db, applicationName, ...options });
  const cacheInvalidation = createCacheInvalidation(listener, logger);
  listener.start();
  const ctx = createTestContext({ db, keyCacheTtlMs: options.keyCacheTtlMs ?? 1000, cacheInvalidation });
  opened.push({ listener, ctx });
  return { ...ctx, listener, applicationName, logLines };
}

function listLeads(app: Express, bearer: string) {
  return request(app).get('/api/v1/leads?pageSize=1').set('Authorization', `Bearer ${bearer}`);
}

/** Polls for at most 200 ms (the time a notification takes to arrive), never longer. */
async function refusedWithin200ms(app: Express, bearer: string): Promise<{ status: number; message?: string }> {
  let last = await listLeads(app, bearer);
  const deadline = Date.now() + 200;
  while (last.status === 200 && Date.now() < deadline) {
    await sleep(10);
    last = await listLeads(app, bearer);
  }
  return { status: last.status, message: last.body?.error?.message };
}

async function terminateListener(db: Db, applicationName: string): Promise<void> {
  const { rows } = await db.raw('select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = ?', [applicationName]);
  expect(rows).toEqual([{ done: true }]);
}

async function workspaceWithKey(db: Db, options: { expiresAt?: Date } = {}) {
  const org = await createOrg(db);
  const member = await createMember(db, org.id, ['DEVELOPER']);
  const victim = await createKey(db, org.id, { memberId: member.id, scopes: ['leads.read'], expiresAt: options.expiresAt });
  return { org, member, victim };
}

// That a cached key costs no api_keys read, observed with knex's query event: a performance
// contract; the revocations' behaviour is tests/integration/key-invalidation.test.ts.
describe('the key cache', () => {
  let a: ReturnType<typeof instance>;
  beforeAll(async () => {
    a = instance({ keyCacheTtlMs: 100 });
    expect(await until(() => a.listener.isLive(), 5000, 10)).toBe(true);
  });

  it('serves a verified key past the short TTL without reading api_keys again', async () => {
    const { victim } = await workspaceWithKey(a.db);
    expect((await listLeads(a.app, victim.key)).status).toBe(200);
    await sleep(300); // three short TTLs; the last-used write of the first request lands meanwhile
    const keyReads: string[] = [];
    const onQuery = (q: { sql: string }) => /from "api_keys"/.test(q.sql) && keyReads.push(q.sql);
    a.db.on('query', onQuery);
    try {
      expect((await listLeads(a.app, victim.key)).status).toBe(200);
    } finally {
      a.db.off('query', onQuery);
    }
    expect(keyReads).toEqual([]);
  });
});
