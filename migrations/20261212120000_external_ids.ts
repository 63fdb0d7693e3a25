import type { Knex } from 'knex';

// External ids (issue 49): leads, contacts and clients take an `external_id`, the caller's own id
// for the record (a sync's key), unique per workspace and resource. The unique indexes are partial
// (most records have none) and lead with org_id: Citus refuses a unique index without the
// distribution column, and a lookup by external id is one index probe within the workspace. Being
// unique, `seed bulk --rebuild-indexes` never drops them (src/db/deferred-indexes keeps them, as it
// keeps every index that keeps rows correct). leads.upsert's `insert ... on conflict (org_id,
// external_id) where external_id is not null do nothing` names the leads' one as its arbiter.
//
// The lead's stored JSON (lead_json) carries `externalId` as its last field, as the Lead object
// writes it: render_lead_json takes it as a new last argument, and every stored JSON gets
// `"externalId":null` (no lead has one yet) without being rendered again.
const TABLES = ['leads', 'contacts', 'clients'] as const;

export async function up(knex: Knex): Promise<void> {
  // One statement a call: Citus runs some of these on every shard.
  for (const table of TABLES) {
    await knex.raw(`alter table ${table} add column external_id text`);
    await knex.raw(`create unique index ${table}_org_external_id_key on ${table} (org_id, external_id) where external_id is not null`);
  }
  await knex.raw(`
    create function render_lead_json(
      id text, contact_id text, status text, source text, notes text, next_call_at timestamptz,
      created_at timestamptz, updated_at timestamptz, assigned_to_id text, client_id text,
      name text, phones text[], emails text[], company text, external_id text
    ) returns text language sql immutable parallel safe as $$
      select row_to_json(j)::text from (
        select id, name, phones, emails, phones[1] as "primaryPhone", emails[1] as "primaryEmail",
          company, contact_id as "contactId", source, status, notes,
          to_char(next_call_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "nextCallAt",
          to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
          to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "updatedAt",
          assigned_to_id as "assignedToId", client_id as "clientId", external_id as "externalId"
      ) j
    $$`);
  await knex.raw('drop function render_lead_json(text, text, text, text, text, timestamptz, timestamptz, timestamptz, text, text, text, text[], text[], text)');
  // row_to_json writes no white space between fields: the closing brace is the text's last character.
  await knex.raw(`update lead_json set json = left(json, -1) || ',"externalId":null}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`update lead_json set json = left(json, -length(',"externalId":null}')) || '}' where json like '%,"externalId":null}'`);
  await knex.raw(`
    create function render_lead_json(
      id text, contact_id text, status text, source text, notes text, next_call_at timestamptz,
      created_at timestamptz, updated_at timestamptz, assigned_to_id text, client_id text,
      name text, phones text[], emails text[], company text
    ) returns text language sql immutable parallel safe as $$
      select row_to_json(j)::text from (
        select id, name, phones, emails, phones[1] as "primaryPhone", emails[1] as "primaryEmail",
          company, contact_id as "contactId", source, status, notes,
          to_char(next_call_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "nextCallAt",
          to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
          to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "updatedAt",
          assigned_to_id as "assignedToId", client_id as "clientId"
      ) j
    $$`);
  await knex.raw('drop function render_lead_json(text, text, text, text, text, timestamptz, timestamptz, timestamptz, text, text, text, text[], text[], text, text)');
  for (const table of TABLES) await knex.raw(`alter table ${table} drop column external_id`);
}
