import type { Knex } from 'knex';

// The trash (docs/trash.md): a deleted lead, contact, client, task or draft invoice leaves its
// live table and lands here, one row per record, until `<resource>.restore` puts it back or the
// purge (src/trash/purge.ts) removes it after TRASH_RETENTION_DAYS. Live reads never look here,
// so the trash costs them nothing. `rows` holds the record's row and its dependent rows exactly
// as stored (to_jsonb of each), and the links the delete cleared, so a restore can re-insert them
// with jsonb_populate_record over the table's row type. `contact_id` is the person the record
// belongs to (a lead's contact, a contact's own id), for an erasure to find a person's trashed
// rows by index. Distributed by org_id beside the workspace's other tables on Citus: every
// statement of a delete or restore is single-shard.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table trash (
      org_id text not null,
      resource text not null check (resource in ('lead', 'contact', 'client', 'task', 'invoice')),
      id text not null,
      deleted_at timestamptz(3) not null,
      deleted_by_kind text not null,
      deleted_by_id text not null,
      contact_id text,
      rows jsonb not null,
      primary key (org_id, resource, id)
    );
    -- getDeleted: a workspace's trash of one resource, newest first.
    create index trash_org_resource_deleted_idx on trash (org_id, resource, deleted_at desc, id desc);
    -- An erasure: a person's trashed rows.
    create index trash_org_contact_idx on trash (org_id, contact_id) where contact_id is not null;
    -- The purge: the oldest rows first, across workspaces.
    create index trash_deleted_idx on trash (deleted_at);
  `);
  const { rows } = await knex.raw(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  if (rows[0].citus) {
    await knex.raw(`select create_distributed_table('trash', 'org_id', colocate_with => 'organisations')`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table trash');
}
