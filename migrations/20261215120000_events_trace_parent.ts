import type { Knex } from 'knex';

// With tracing on, an event keeps the W3C traceparent of the call that recorded it, so the span of
// its webhook delivery (a trace of its own, in the worker) can link back to the request. Null when
// tracing is off. A nullable column without a default: no rewrite of the table, and on Citus the
// ALTER is propagated to every shard.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table events add column trace_parent text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table events drop column trace_parent');
}
