import type { Knex } from 'knex';
import * as createApiKeyRequests from './20261216120100_create_api_key_requests';
import * as requestLogKeyIndexAscending from './20261216120300_request_log_key_index_ascending';

// Each API key's request log, stored as one row per key per flush: the writer's batch for that
// key, one array per field. A row per request cost PostgreSQL a heap tuple and an
// index entry for every logged request, a quarter of what the cached read it logged cost it; a
// row per batch costs it one tuple (its arrays compressed out of line) for up to 500 requests, and
// apiKeys.getRequests unpacks the batches a page needs (src/db/api-key-requests). `first_id` and
// `last_id` bound the batch's ids (time-ordered, compared byte-wise); `last_at`, its newest
// request's time, is what the retention purge compares. The rows already logged move over,
// grouped by key and minute. Distributed by org_id beside api_keys on Citus.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table api_key_request_batches (
      org_id text not null,
      key_id text not null,
      first_id text collate "C" not null,
      last_id text collate "C" not null,
      last_at timestamptz(3) not null,
      ids text[] not null,
      at_ms bigint[] not null,
      methods text[] not null,
      procedures text[] not null,
      statuses smallint[] not null,
      error_codes text[] not null,
      durations_ms real[] not null,
      request_ids text[] not null,
      client_addresses text[] not null
    );
    -- apiKeys.getRequests: a key's batches, newest last id first (read backwards).
    create index api_key_request_batches_key_idx on api_key_request_batches (org_id, key_id, last_id, first_id);
    -- The retention purge: batches arrive in time order, so a BRIN index finds the old ones for next to nothing per insert.
    create index api_key_request_batches_at_idx on api_key_request_batches using brin (last_at);
  `);
  if (await onCitus(knex)) {
    await knex.raw(`select create_distributed_table('api_key_request_batches', 'org_id', colocate_with => 'api_keys')`);
  }
  await knex.raw(`
    -- Grouped by org_id: on Citus each shard's rows go to its colocated shard.
    insert into api_key_request_batches
    select org_id, key_id, min(id), max(id), max(at),
      array_agg(id order by id), array_agg((extract(epoch from at) * 1000)::bigint order by id), array_agg(method order by id),
      array_agg(procedure order by id), array_agg(status order by id), array_agg(error_code order by id),
      array_agg(duration_ms order by id), array_agg(request_id order by id), array_agg(client_address order by id)
    from api_key_requests
    group by org_id, key_id, date_trunc('minute', at)
  `);
  await knex.raw('drop table api_key_requests');
}

export async function down(knex: Knex): Promise<void> {
  await onCitus(knex);
  await createApiKeyRequests.up(knex);
  await requestLogKeyIndexAscending.up(knex);
  await knex.raw(`
    insert into api_key_requests
    select org_id, key_id, e.id, to_timestamp(e.at_ms / 1000.0), e.method, e.procedure, e.status, e.error_code, e.duration_ms, e.request_id, e.client_address
    from api_key_request_batches,
      unnest(ids, at_ms, methods, procedures, statuses, error_codes, durations_ms, request_ids, client_addresses)
        as e(id, at_ms, method, procedure, status, error_code, duration_ms, request_id, client_address)
  `);
  await knex.raw('drop table api_key_request_batches');
}

/**
 * Whether this is a Citus cluster; there, readies this migration's transaction to move rows
 * between two distributed tables right after DDL: one connection a worker (Citus refuses parallel
 * connections after DDL in the transaction) and the move's statements allowed to span shards.
 */
async function onCitus(knex: Knex): Promise<boolean> {
  const { rows } = await knex.raw(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  if (!rows[0].citus) return false;
  await knex.raw(`set local citus.multi_shard_modify_mode to 'sequential'`);
  await knex.raw(`set local citus.multi_task_query_log_level = 'off'`);
  return true;
}
