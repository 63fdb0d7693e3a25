import type { Knex } from 'knex';

// The REST list sends each lead as PostgreSQL renders it. Rendered on every read (a contact
// lookup, three to_char and a row_to_json for each of 101 rows), the million-lead workspace's
// first page cost 1,254 µs of database CPU at 50 connections; read from here, 787. Each lead's
// JSON is now rendered when the lead or its contact is
// written, into lead_json, and a page reads it by key. The rendering is one view,
// lead_json_render, used by the triggers and the backfill, so stored and fresh JSON come from
// the same SQL. It writes each field exactly as the Lead object's JSON.stringify does
// (tests/integration/leads-rest-json.test.ts); to_char writes a timestamp as toISOString does
// because dates are bounded to the years 0001-9999. The triggers write in the same transaction
// as the lead or contact, so the JSON is never stale.
/** The statement trigger's first body; migration 20261207120000 replaces it, and its down restores this. */
export const LEAD_JSON_STORE_BY_JOIN = `
    create or replace function lead_json_store() returns trigger language plpgsql as $$
    begin
      insert into lead_json (org_id, lead_id, json)
      select r.org_id, r.lead_id, r.json
      from new_rows n
      join lead_json_render r on r.org_id = n.org_id and r.lead_id = n.id
      order by r.org_id, r.lead_id
      on conflict (org_id, lead_id) do update set json = excluded.json;
      return null;
    end $$;`;

export async function up(knex: Knex): Promise<void> {
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
    ) j;

    create table lead_json (
      org_id text not null,
      lead_id text not null,
      json text not null,
      primary key (org_id, lead_id),
      foreign key (org_id, lead_id) references leads (org_id, id) on delete cascade
    );

    -- Statement-level, so a bulk insert renders its leads in one set-based statement. An AFTER
    -- trigger sees the whole statement's writes, contacts inserted alongside included.
    ${LEAD_JSON_STORE_BY_JOIN}

    create trigger leads_store_json_insert after insert on leads
      referencing new table as new_rows for each statement execute function lead_json_store();
    create trigger leads_store_json_update after update on leads
      referencing new table as new_rows for each statement execute function lead_json_store();

    -- Locks the contact's leads before their JSON, in the order a lead's own update takes them
    -- (the lead, then its JSON), so the two never wait on each other in opposite orders.
    create function contacts_store_lead_json() returns trigger language plpgsql as $$
    begin
      perform 1 from leads where org_id = new.org_id and contact_id = new.id order by id for no key update;
      update lead_json d set json = r.json
      from lead_json_render r
      where r.org_id = new.org_id and r.contact_id = new.id and d.org_id = r.org_id and d.lead_id = r.lead_id;
      return null;
    end $$;

    create trigger contacts_store_lead_json after update on contacts for each row
      when ((old.name, old.phones, old.emails, old.company) is distinct from (new.name, new.phones, new.emails, new.company))
      execute function contacts_store_lead_json();

    -- Creating the triggers above locked leads and contacts against writes until this transaction
    -- commits, so the backfill and the triggers together render every lead. Writes of leads and
    -- contacts wait for the backfill (tens of seconds at a million leads); reads go on meanwhile.
    insert into lead_json (org_id, lead_id, json) select org_id, lead_id, json from lead_json_render order by org_id, lead_id;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger contacts_store_lead_json on contacts;
    drop function contacts_store_lead_json();
    drop trigger leads_store_json_update on leads;
    drop trigger leads_store_json_insert on leads;
    drop function lead_json_store();
    drop table lead_json;
    drop view lead_json_render;
  `);
}
