import type { Knex } from 'knex';

// The change history of leads, contacts and clients (issue 50; src/db/history): one row per write
// of a record, with the fields it changed (`{field: {from, to}}`, named as the API names them),
// who (as events name the actor), through which procedure, and the request id. Written by the
// same statement as the write's events (src/db/events/record.ts), never by a round trip of its
// own. Kept as long as the record is: not purged with the events (src/events/retention.ts), and
// kept when the record is deleted (a restore brings it back); the trash's purge and a person's
// erasure remove it, by the records' ids (the contact's and its leads'). No foreign keys: a row
// outlives its record's delete. On Citus distributed by org_id beside the workspace's other
// tables, so the write's statement and the history's reads stay single-shard.
export const HISTORY_TABLES = ['record_history'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table record_history (
      org_id text not null,
      id text not null,
      resource text not null check (resource in ('lead', 'contact', 'client')),
      record_id text not null,
      changed_at timestamptz not null,
      actor_kind text not null,
      actor_id text not null,
      procedure text,
      request_id text,
      action text not null check (action in ('created', 'updated', 'deleted', 'restored')),
      -- {field: {from, to}}; a creation's row holds the record as created (its fields set are its changes).
      changes jsonb not null,
      -- A record's history in order (leads.getHistory and the others walk it backwards, newest
      -- first, by keyset), and a person's (the erasure's and the access export's: the contact's
      -- and its leads' ids): the one index a write's entries go into.
      primary key (org_id, resource, record_id, changed_at, id)
    );
  `);
  const { rows } = await knex.raw(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  if (rows[0].citus) {
    for (const table of HISTORY_TABLES) {
      await knex.raw(`select create_distributed_table(?, 'org_id', colocate_with => 'organisations')`, [table]);
    }
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists record_history');
}
