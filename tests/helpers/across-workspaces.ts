import type { Knex } from 'knex';
import type { Db } from '../../src/db/knex';

/**
 * A test's own fixture query across workspaces (which workspace has a name, a table's statistics):
 * on Citus the run's database refuses a statement touching more than one shard
 * (tests/helpers/global-setup.ts sets citus.multi_task_query_log_level = error), so this lifts
 * that for one transaction of the test's own. The service's exemptions are its own
 * (src/db/across-workspaces.ts, tested by the performance-contract suite).
 */
export function acrossWorkspaces<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx.raw(`set local citus.multi_task_query_log_level = 'off'`);
    return work(trx);
  });
}
