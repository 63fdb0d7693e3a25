import type { Knex } from 'knex';

// lead_json_render joined each lead to its contact, and for a workspace newer than the
// statistics PostgreSQL expected one contact and probed contacts by workspace alone, filtering on
// the contact id: every lead's JSON read every contact of its workspace, so a create's cost grew
// with the workspace (and a bulk load's batches with the load). The rendering is now a function of
// the values, render_lead_json, which src/db/leads/lead-json.ts calls on rows it reads by key, and
// a create on the values it inserts (so a create renders without reading its rows back).
// Immutable: the time zone is given (UTC) and no pattern depends on the locale.
export async function up(knex: Knex): Promise<void> {
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
  await knex.raw('drop view lead_json_render');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create view lead_json_render as
    select l.org_id, l.id as lead_id, l.contact_id, row_to_json(j)::text as json
    from leads l
    join contacts c on c.org_id = l.org_id and c.id = l.contact_id
    cross join lateral (
      select l.id, c.name, c.phones, c.emails, c.phones[1] as "primaryPhone", c.emails[1] as "primaryEmail",
        c.company, l.contact_id as "contactId", l.source, l.status, l.notes,
        to_char(l.next_call_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "nextCallAt",
        to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
        to_char(l.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "updatedAt",
        l.assigned_to_id as "assignedToId", l.client_id as "clientId"
    ) j`);
  await knex.raw('drop function render_lead_json');
}
