import type { Knex } from 'knex';

// Issue 52: redelivery on demand and each endpoint's delivery figures (src/db/webhooks).
//
// `retry_base`: the delivery's `attempts` when it was last queued again by webhooks.redeliver.
// Attempt numbers keep increasing (attempts are keyed by (delivery_id, attempt)), and the retry
// budget (WEBHOOK_MAX_ATTEMPTS) counts from this base, so a redelivered delivery gets a fresh one.
// A constant default: no rewrite of the table, and on Citus the ALTER reaches every shard.
//
// `webhook_endpoint_hours`: per endpoint and hour, how many attempts were made and how many
// succeeded, and the latest attempt's time and answer; upserted by the statement that records an
// attempt (src/db/webhooks/deliveries.ts), so webhooks.getAll reads at most 24 rows per endpoint
// for its figures, whatever the endpoint's volume. Goes with its endpoint. On Citus distributed by
// org_id beside the endpoint, so the attempt's statement stays single-shard.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table webhook_deliveries add column retry_base integer not null default 0;
    create table webhook_endpoint_hours (
      org_id text not null,
      endpoint_id text not null,
      hour timestamptz not null,
      attempts integer not null,
      succeeded integer not null,
      last_attempt_at timestamptz(3) not null,
      last_status_code integer,
      last_succeeded boolean not null,
      primary key (org_id, endpoint_id, hour),
      foreign key (org_id, endpoint_id) references webhook_endpoints (org_id, id) on delete cascade
    );
  `);
  const { rows } = await knex.raw(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  if (rows[0].citus) await knex.raw(`select create_distributed_table('webhook_endpoint_hours', 'org_id', colocate_with => 'organisations')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists webhook_endpoint_hours; alter table webhook_deliveries drop column retry_base');
}
