import type { Knex } from 'knex';

// A record's creation entry is its `<noun>.created` event while the event is kept (src/db/history
// reads it from there; the events' purge moves it into record_history first, for records still
// there): a create writes no history row. The entry names the call's procedure and request id,
// so every event now keeps them. Creation rows written before stay in record_history; the reads
// skip an event whose entry is already there.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table events add column procedure text, add column request_id text');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table events drop column procedure, drop column request_id');
}
