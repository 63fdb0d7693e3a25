import type { Knex } from 'knex';

// The leads list answers an exact `total` on every page. count(*) over a million-lead workspace
// costs about 100 ms, so totals for filters without a search come from counters kept in the
// writing transaction instead: one row per (workspace, status, assignee, shard). Statement-level
// triggers with transition tables aggregate a whole statement into one upsert per group, and each
// statement picks a random shard, so concurrent inserts into one workspace rarely wait on one row.
// Rows are upserted in key order so two statements never lock the same rows in opposite orders.
// The join to organisations skips a workspace being deleted (its counters go with it, cascading).
const SHARDS = 16;

function upsertFrom(deltas: string): string {
  return `
    insert into lead_counts (org_id, status, assignee_key, shard, n)
    select d.org_id, d.status, d.assignee_key, pick, sum(d.n)
    from (${deltas}) d
    join organisations o on o.id = d.org_id
    group by d.org_id, d.status, d.assignee_key
    having sum(d.n) <> 0
    order by d.org_id, d.status, d.assignee_key
    on conflict (org_id, status, assignee_key, shard) do update set n = lead_counts.n + excluded.n;`;
}

const PLUS = `select org_id, status, coalesce(assigned_to_id, '') as assignee_key, 1 as n from new_rows`;
const MINUS = `select org_id, status, coalesce(assigned_to_id, '') as assignee_key, -1 as n from old_rows`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table lead_counts (
      org_id text not null references organisations (id) on delete cascade,
      status text not null,
      assignee_key text not null,
      shard smallint not null,
      n bigint not null,
      primary key (org_id, status, assignee_key, shard)
    );

    create function lead_counts_apply() returns trigger language plpgsql as $$
    declare
      pick smallint := floor(random() * ${SHARDS})::smallint;
    begin
      if tg_op = 'INSERT' then
        ${upsertFrom(PLUS)}
      elsif tg_op = 'DELETE' then
        ${upsertFrom(MINUS)}
      else
        ${upsertFrom(`${PLUS} union all ${MINUS}`)}
      end if;
      return null;
    end $$;

    create trigger leads_count_insert after insert on leads
      referencing new table as new_rows for each statement execute function lead_counts_apply();
    create trigger leads_count_update after update on leads
      referencing old table as old_rows new table as new_rows for each statement execute function lead_counts_apply();
    create trigger leads_count_delete after delete on leads
      referencing old table as old_rows for each statement execute function lead_counts_apply();

    -- The triggers above lock leads against writes until this transaction commits, so the
    -- backfill and the triggers together count every row exactly once.
    insert into lead_counts (org_id, status, assignee_key, shard, n)
    select org_id, status, coalesce(assigned_to_id, ''), 0, count(*)
    from leads group by org_id, status, coalesce(assigned_to_id, '');
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger leads_count_delete on leads;
    drop trigger leads_count_update on leads;
    drop trigger leads_count_insert on leads;
    drop function lead_counts_apply();
    drop table lead_counts;
  `);
}
