import type { Knex } from 'knex';

// `seed bulk --rebuild-indexes` drops the loaded tables' secondary indexes for the load and
// builds them again after it, as PostgreSQL's own advice for populating a table goes: a trigram
// index built in one pass costs about a third of what keeping it up to date row by row does
// (a million leads: 136 s in all instead of 240). Each dropped index's definition is
// written here in the transaction that drops it, and deleted in the one that builds it again,
// so a load that dies between the two leaves a list of what to rebuild, never a silently
// missing index (`workspace-api indexes rebuild`, or the next `seed bulk`, rebuilds them).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table deferred_indexes (
      name text primary key,
      table_name text not null,
      definition text not null,
      deferred_at timestamptz not null default now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table deferred_indexes');
}
