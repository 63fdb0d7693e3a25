import type { Knex } from 'knex';
import { WORKSPACE_TABLES as DISTRIBUTED_TABLES } from './20261209120000_distribute_by_workspace';

// A workspace's concurrent writers no longer queue behind two rows it shared
// (docs/decisions.md, "Writes"):
// - Events. Each took the next number of its workspace's event_sequences row and held that row's
//   lock until commit. Now an event records the writing transaction's id (`txid`) and a number
//   from one sequence (`seq`); catch-up reads in (txid, seq) order, only below the oldest
//   transaction still running (pg_snapshot_xmin), so one that commits later always sorts after
//   what was read. On Citus both defaults are evaluated on the coordinator, where every write
//   begins: one transaction-id space for all workspaces.
// - Lead counters. Each write upserted one of 16 shard rows per group; now each inserts a row of
//   its own (a random shard in 1..2^62, so no two writes meet) and `foldCounterShards` folds the
//   rows of a group into shard 0 in the background (the partial index finds what is left to fold).
/** The workspace tables distributed by 20261209120000 that remain after this migration drops event_sequences. */
export const WORKSPACE_TABLES = DISTRIBUTED_TABLES.filter((table) => table !== 'event_sequences');

export async function up(knex: Knex): Promise<void> {
  // One statement a call: Citus runs some of these (the update, setval) across every shard.
  for (const statement of [
    'alter table events add column txid xid8',
    // Events recorded before: older than any transaction to come, in their old order.
    "update events set txid = '0'",
    'alter table events alter column txid set not null, alter column txid set default pg_current_xact_id()',
    'create sequence events_seq',
    'select setval(\'events_seq\', coalesce((select max(seq) from events), 0) + 1, false)',
    "alter table events alter column seq set default nextval('events_seq')",
    'create unique index events_org_order_key on events (org_id, txid, seq)',
    'drop index events_org_seq_key',
    'drop table event_sequences',
    'alter table lead_counts alter column shard type bigint',
    'create index lead_counts_unfolded_idx on lead_counts (org_id) where shard <> 0',
    // Every write's row is deleted by the next fold: a dead row per write, in a table of a few
    // rows per workspace, which totals read through. Vacuumed after 1,000, not after a fifth of
    // the table (the default, which a table this small never reached while the writes went on).
    'alter table lead_counts set (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_insert_threshold = 1000, autovacuum_vacuum_insert_scale_factor = 0)',
  ]) {
    await knex.raw(statement);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table lead_counts reset (autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor, autovacuum_vacuum_insert_threshold, autovacuum_vacuum_insert_scale_factor);
    drop index lead_counts_unfolded_idx;
    create table event_sequences (
      org_id text primary key references organisations (id) on delete cascade,
      last_seq bigint not null
    );
    insert into event_sequences (org_id, last_seq) select org_id, max(seq) from events group by org_id;
    create unique index events_org_seq_key on events (org_id, seq);
    drop index events_org_order_key;
    alter table events alter column seq drop default;
    drop sequence events_seq;
    alter table events drop column txid;
  `);
}
