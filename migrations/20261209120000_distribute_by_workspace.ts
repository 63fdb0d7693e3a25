import type { Knex } from 'knex';

// One schema for one PostgreSQL and for a Citus cluster, where every workspace table is sharded
// by org_id and co-located, so everything a request touches sits in one shard group.
//
// What Citus cannot take, and what replaces it (docs/scaling.md says more):
// - Triggers. A trigger runs on the worker holding the shard: a NOTIFY it sends never reaches the
//   coordinator where instances LISTEN, and one that writes another table is a second hidden
//   write path. The counters, the leads' copies of their contact's search text and the stored
//   lead JSON are now written by the data modules that write leads and contacts
//   (src/db/leads/, src/db/contacts/), and the cache notifications by the modules that change
//   keys, members and workspaces, in the same transaction.
// - ON DELETE SET NULL (column) on a key that includes the distribution column. The references
//   stay (plain foreign keys); the delete functions clear them first, in the deleting transaction.
// - A unique index without the distribution column. Keys are looked up by their secret's hash
//   before the workspace is known: api_key_secrets (a reference table on Citus, one copy per node)
//   holds that global unique index and answers which workspace and key a hash names.
// - Volatile functions in writes (Citus evaluates functions on the coordinator, and cannot when
//   they take a column): updated_at moves on through next_updated_at(), an immutable function of
//   the old value and the statement's time, and claim tokens are made by the service.
// - Transaction ids as an order. Each shard has its own, so events take their position from a
//   per-workspace counter (event_sequences) taken in the writing transaction: the counter row's
//   lock makes each workspace's events commit in sequence order.
const SET_NULL_REFERENCES = [
  ['clients', 'clients_org_id_contact_id_fkey', 'contact_id', 'contacts'],
  ['leads', 'leads_org_id_assigned_to_id_fkey', 'assigned_to_id', 'org_members'],
  ['leads', 'leads_org_id_client_id_fkey', 'client_id', 'clients'],
  ['tasks', 'tasks_org_id_lead_id_fkey', 'lead_id', 'leads'],
  ['tasks', 'tasks_org_id_client_id_fkey', 'client_id', 'clients'],
  ['tasks', 'tasks_org_id_assigned_to_id_fkey', 'assigned_to_id', 'org_members'],
  ['api_keys', 'api_keys_org_id_member_id_fkey', 'member_id', 'org_members'],
] as const;

const TRIGGERS = [
  ['leads_count_insert', 'leads'], ['leads_count_update', 'leads'], ['leads_count_delete', 'leads'],
  ['leads_copy_contact_search', 'leads'], ['contacts_pass_search_to_leads', 'contacts'],
  ['leads_store_json_insert', 'leads'], ['leads_store_json_update', 'leads'], ['contacts_store_lead_json', 'contacts'],
  ['api_keys_notify_update', 'api_keys'], ['api_keys_notify_delete', 'api_keys'],
  ['org_members_notify_update', 'org_members'], ['org_members_notify_delete', 'org_members'],
  ['organisations_notify_update', 'organisations'], ['organisations_notify_delete', 'organisations'],
] as const;

const TRIGGER_FUNCTIONS = [
  'lead_counts_apply', 'leads_copy_contact_search', 'contacts_pass_search_to_leads', 'lead_json_store',
  'contacts_store_lead_json', 'notify_api_key_change', 'notify_member_change', 'notify_org_change',
];

/** Distributed on org_id (organisations on id), in an order where every referenced table comes first. */
export const WORKSPACE_TABLES = [
  'org_members', 'contacts', 'clients', 'leads', 'tasks', 'invoices', 'invoice_line_items', 'api_keys',
  'lead_calls', 'lead_counts', 'lead_json', 'idempotency_keys', 'event_sequences', 'events',
  'webhook_endpoints', 'webhook_deliveries', 'webhook_delivery_attempts',
] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    -- Adding a millisecond to an instant does not depend on the time zone: immutable, whatever
    -- PostgreSQL's timestamptz + interval (stable, for months and days) says.
    create function next_updated_at(previous timestamptz, write_time timestamptz) returns timestamptz
      language sql immutable parallel safe
      as $$ select greatest(write_time, previous + interval '1 millisecond') $$;

    ${TRIGGERS.map(([name, table]) => `drop trigger ${name} on ${table};`).join('\n')}
    ${TRIGGER_FUNCTIONS.map((name) => `drop function ${name}();`).join('\n')}

    ${SET_NULL_REFERENCES.map(([table, name, column, target]) => `
      alter table ${table} drop constraint ${name},
        add constraint ${name} foreign key (org_id, ${column}) references ${target} (org_id, id);`).join('\n')}

    create table api_key_secrets (
      secret_hash text primary key,
      org_id text not null,
      key_id text not null
    );
    insert into api_key_secrets (secret_hash, org_id, key_id) select secret_hash, org_id, id from api_keys;
    drop index api_keys_secret_hash_key;

    create table event_sequences (
      org_id text primary key references organisations (id) on delete cascade,
      last_seq bigint not null
    );
    insert into event_sequences (org_id, last_seq) select org_id, max(seq) from events group by org_id;
    alter table events alter column seq drop identity;
    drop index events_org_order_idx;
    alter table events drop column txid;
    create unique index events_org_seq_key on events (org_id, seq);

    -- The webhook worker claims due deliveries one workspace at a time, in the order they fell due.
    drop index webhook_deliveries_due_idx;
    create index webhook_deliveries_due_idx on webhook_deliveries (org_id, next_attempt_at, event_seq) where status = 'pending';
  `);

  const { rows } = await knex.raw(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  if (rows[0].citus) await distribute(knex);
}

/**
 * On a Citus coordinator: every workspace table sharded by workspace in one co-location group,
 * api_key_secrets copied to every node. The foreign keys are taken off while the tables are
 * distributed one by one (Citus refuses a distributed table referenced by a local one) and put
 * back after, when Citus checks them shard by shard.
 */
async function distribute(knex: Knex): Promise<void> {
  const { rows: keys } = await knex.raw(`
    select c.conrelid::regclass::text as table_name, c.conname as name, pg_get_constraintdef(c.oid) as definition
    from pg_constraint c
    where c.contype = 'f' and c.connamespace = 'public'::regnamespace
    order by c.conrelid::regclass::text, c.conname`);
  for (const key of keys) await knex.raw(`alter table ${key.table_name} drop constraint ${key.name}`);
  await knex.raw(`select create_distributed_table('organisations', 'id')`);
  for (const table of WORKSPACE_TABLES) {
    await knex.raw(`select create_distributed_table(?, 'org_id', colocate_with => 'organisations')`, [table]);
  }
  await knex.raw(`select create_reference_table('api_key_secrets')`);
  for (const key of keys) await knex.raw(`alter table ${key.table_name} add constraint ${key.name} ${key.definition}`);
}

export async function down(): Promise<void> {
  throw new Error('20261209120000_distribute_by_workspace cannot be undone: restore from a backup taken before it');
}
