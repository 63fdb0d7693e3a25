import type { Knex } from 'knex';

// A foreign key's check locks the referenced row (FOR KEY SHARE) in every inserting transaction:
// every write of a workspace, on every table referencing organisations, locked the workspace's
// one row, and concurrent lockers of one row share it through a MultiXact that each new locker
// rewrites (with every member), WAL-logged: the workspace's row was the hot row all its writers
// met. The workspace's data (its contacts, clients, leads, tasks, invoices, counters, events and
// idempotency keys) no longer references it; every such row's org_id is the authenticated key's
// workspace, which exists. Its configuration (members, API keys, webhook endpoints), written
// rarely, keeps the reference. What goes with it: deleting a workspace's row no longer deletes
// its data (the service has no such operation; docs/decisions.md, "The workspace's row").
const TABLES = ['contacts', 'clients', 'leads', 'tasks', 'invoices', 'lead_counts', 'idempotency_keys', 'events'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const table of TABLES) await knex.raw(`alter table ${table} drop constraint ${table}_org_id_fkey`);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of TABLES) {
    await knex.raw(`alter table ${table} add constraint ${table}_org_id_fkey foreign key (org_id) references organisations (id) on delete cascade`);
  }
}
