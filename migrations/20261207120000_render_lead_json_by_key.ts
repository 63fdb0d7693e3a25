import type { Knex } from 'knex';
import { LEAD_JSON_STORE_BY_JOIN } from './20261205120000_store_lead_json';

// lead_json_store joined a statement's new rows to lead_json_render as a plain join, and the
// planner, which knows the transition table's row count, hashed the whole leads table (every
// workspace) once the statement held enough rows: at 50,000 rows into a table of a million, a
// sequential scan and a 104 MB hash of every lead took 1.2 s of the trigger's 3.5, and more as
// the table grew. Each row is now
// rendered by its own keys (OFFSET 0 keeps the lateral subquery from being flattened back into
// that join): two primary-key probes per row, whatever the table's size. One-row writes, the
// API's, were already planned this way.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create or replace function lead_json_store() returns trigger language plpgsql as $$
    begin
      insert into lead_json (org_id, lead_id, json)
      select r.org_id, r.lead_id, r.json
      from new_rows n
      cross join lateral (
        select v.org_id, v.lead_id, v.json from lead_json_render v
        where v.org_id = n.org_id and v.lead_id = n.id
        offset 0
      ) r
      order by r.org_id, r.lead_id
      on conflict (org_id, lead_id) do update set json = excluded.json;
      return null;
    end $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(LEAD_JSON_STORE_BY_JOIN);
}
