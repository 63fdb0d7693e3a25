import type { Knex } from 'knex';

// What a create writes beyond its rows, made smaller (docs/decisions.md, "A create is one statement"):
// - events_created_idx (created_at) serves only the retention purge, which deletes the oldest
//   events of every workspace: a B-tree entry per event for a query that runs once a while. Events
//   are appended in time order, so a BRIN index (a summary per range of pages, written by
//   vacuum, not by the insert) finds the old pages as well.
// - leads_org_client_idx finds a client's leads (clients.delete unlinks them); most leads have no
//   client, and a partial index skips them (`client_id = ?` implies the predicate).
// - lead_counts rows are now a session's, updated in place by each write (src/db/leads/counters.ts):
//   room on each page for the new versions keeps those updates HOT (no index entry).
export async function up(knex: Knex): Promise<void> {
  for (const statement of [
    'create index events_created_brin on events using brin (created_at)',
    'drop index events_created_idx',
    'create index leads_org_client_linked_idx on leads (org_id, client_id) where client_id is not null',
    'drop index leads_org_client_idx',
    'alter table lead_counts set (fillfactor = 50)',
  ]) {
    await knex.raw(statement);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of [
    'alter table lead_counts reset (fillfactor)',
    'create index leads_org_client_idx on leads (org_id, client_id)',
    'drop index leads_org_client_linked_idx',
    'create index events_created_idx on events (created_at)',
    'drop index events_created_brin',
  ]) {
    await knex.raw(statement);
  }
}
