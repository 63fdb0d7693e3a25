import type { Knex } from 'knex';

// `assignedToId=unassigned` is `assigned_to_id is null`, which PostgreSQL does not treat as an
// equality: it cannot read leads_org_assignee_order_idx in the list's order past it, and chose
// to walk the whole workspace's order index, filtering (measured: 400+ rows read per page of
// 100 at a million leads, more where most leads are assigned). This partial index is that list.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create index leads_org_unassigned_order_idx on leads (org_id, next_call_at, created_at desc, id desc)
      where assigned_to_id is null;
    create index leads_org_status_unassigned_order_idx on leads (org_id, status, next_call_at, created_at desc, id desc)
      where assigned_to_id is null;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index leads_org_status_unassigned_order_idx; drop index leads_org_unassigned_order_idx;');
}
