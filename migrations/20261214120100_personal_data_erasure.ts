import type { Knex } from 'knex';

// contacts.erase and contacts.exportPersonalData (docs/personal-data.md).
// - erasures: the audit row of each erasure: who, when, which ids. No personal data, so it is
//   kept for good (the proof that a request to be forgotten was carried out).
// - events_org_person_idx (src/db/events/personal-data.ts queries this very expression): a person's events in one index lookup, without a scan of the
//   workspace's events: a lead.* event is the person's by the contact its lead object embeds
//   (`data.object.contactId`, which also finds the events of leads deleted long ago), any other
//   event by its object's id (contact.*: the contact itself). One index, one more index entry per
//   event written.
// - clients_org_contact_idx: the clients linked to a contact (which lose the link when it is
//   erased or deleted, and which the export lists) without a scan of the workspace's clients.
// One command a statement: Citus refused these as one multi-command text ("cannot insert multiple
// commands into a prepared statement").
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table erasures (
      org_id text not null,
      id text not null,
      contact_id text not null,
      lead_ids text[] not null,
      actor_kind text not null,
      actor_id text not null,
      request_id text,
      erased_at timestamptz(3) not null default now(),
      primary key (org_id, id)
    )
  `);
  await knex.raw('create index erasures_org_contact_idx on erasures (org_id, contact_id)');
  await knex.raw('create index clients_org_contact_idx on clients (org_id, contact_id)');
  await knex.raw(`create index events_org_person_idx on events (org_id, (case when type like 'lead.%' then data #>> '{object,contactId}' else object_id end))`);
  const { rows } = await knex.raw(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  if (rows[0].citus) await knex.raw(`select create_distributed_table('erasures', 'org_id', colocate_with => 'organisations')`);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of ['drop index events_org_person_idx', 'drop index clients_org_contact_idx', 'drop table erasures']) await knex.raw(statement);
}
