import type { Knex } from 'knex';
import type { Db } from './knex';

/**
 * Work that truly spans workspaces (the retention purges, the webhook worker's look for due
 * deliveries, operators' listings) runs here, in its own transaction. On Citus such statements
 * touch every shard; a deployment (and the test suite) may have its sessions refuse that with
 * `citus.multi_task_query_log_level = error`, which proves every API request stays in one shard
 * group. This lifts the refusal for this transaction only, and names the exemption where it is
 * used. On one PostgreSQL the setting is an inert placeholder.
 */
export function acrossWorkspaces<T>(db: Db, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx.raw(`set local citus.multi_task_query_log_level = 'off'`);
    return work(trx);
  });
}
