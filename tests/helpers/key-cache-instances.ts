import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, createTestDb, testDatabaseUrl, type TestContext } from './test-app';
import { createKey, createMember, createOrg, unique } from './factories';
import { createLogger } from '../../src/logger';
import { createCacheInvalidation } from '../../src/auth/key-invalidation';
import { createNotificationListener, type ListenerOptions, type NotificationListener } from '../../src/live/notification-listener';
import type { Db } from '../../src/db/knex';
import type { Registry } from '../../src/rpc/registry';
import { sleep } from './poll';

// Instances of the service as the key cache's tests run them (tests/integration/key-invalidation.test.ts,
// tests/performance-contracts/key-cache-reads.test.ts): each its own pool, LISTEN connection and caches.

const opened: { listener: NotificationListener; ctx: TestContext }[] = [];
/** Stops every instance `instance` opened: each test file's afterAll. */
export async function closeInstances(): Promise<void> {
  for (const { listener, ctx } of opened.splice(0)) {
    await listener.stop();
    await ctx.close();
  }
}

/** One instance of the service: its own pool, its own LISTEN connection, its own caches (and, if given, its own registry). */
export function instance(options: { keyCacheTtlMs?: number; registry?: Registry } & Partial<ListenerOptions> = {}) {
  const { keyCacheTtlMs, registry, ...listenerOptions } = options;
  const db = createTestDb();
  const applicationName = unique('wsapi-listener');
  const logLines: { level: number; msg: string }[] = [];
  const logger = createLogger('info', { destination: { write: (line: string) => void logLines.push(JSON.parse(line)) } });
  const listener = createNotificationListener({ url: testDatabaseUrl(), db, applicationName, ...listenerOptions });
  const cacheInvalidation = createCacheInvalidation(listener, logger);
  listener.start();
  const ctx = createTestContext({ db, keyCacheTtlMs: keyCacheTtlMs ?? 1000, cacheInvalidation, registry });
  opened.push({ listener, ctx });
  return { ...ctx, listener, applicationName, logLines };
}

export function listLeads(app: Express, bearer: string) {
  return request(app).get('/api/v1/leads?pageSize=1').set('Authorization', `Bearer ${bearer}`);
}

/** Polls for at most 200 ms (the time a notification takes to arrive), never longer. */
export async function refusedWithin200ms(app: Express, bearer: string): Promise<{ status: number; message?: string }> {
  let last = await listLeads(app, bearer);
  const deadline = Date.now() + 200;
  while (last.status === 200 && Date.now() < deadline) {
    await sleep(10);
    last = await listLeads(app, bearer);
  }
  return { status: last.status, message: last.body?.error?.message };
}

export async function terminateListener(db: Db, applicationName: string): Promise<void> {
  const { rows } = await db.raw('select pg_terminate_backend(pid) as done from pg_stat_activity where application_name = ?', [applicationName]);
  expect(rows).toEqual([{ done: true }]);
}

export async function workspaceWithKey(db: Db, options: { expiresAt?: Date } = {}) {
  const org = await createOrg(db);
  const member = await createMember(db, org.id, ['DEVELOPER']);
  const victim = await createKey(db, org.id, { memberId: member.id, scopes: ['leads.read'], expiresAt: options.expiresAt });
  return { org, member, victim };
}
