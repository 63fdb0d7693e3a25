import type { Db } from './knex';

/** The channel every instance's key caches read (src/auth/key-invalidation.ts), on its LISTEN connection (src/live/notification-listener.ts). */
export const CHANGES_CHANNEL = 'api_key_changes';

/** A row that authentication caches depend on changed (or was deleted) in a committed transaction. */
export type CacheChange =
  | { kind: 'key'; orgId: string; keyId: string }
  | { kind: 'member'; orgId: string; memberId: string }
  | { kind: 'org'; orgId: string };

/**
 * Tells every instance to forget what it cached about a key, a member or a workspace. Called by
 * the data modules that change them, with the writing transaction: PostgreSQL sends a NOTIFY at
 * commit and never on rollback. It is its own statement, touching no table, so on Citus it runs
 * on the coordinator, where the instances LISTEN (a trigger's NOTIFY would fire on a worker).
 * Rows changed by hand in SQL are not announced: `workspace-api cache flush` announces them.
 */
export async function announceCacheChange(db: Db, change: CacheChange | { kind: 'all' }): Promise<void> {
  await db.raw('select pg_notify(?, ?)', [CHANGES_CHANNEL, JSON.stringify(change)]);
}
