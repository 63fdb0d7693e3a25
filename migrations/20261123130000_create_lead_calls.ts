import type { Knex } from 'knex';

// A lead's call history (and the indexes the other routers' lists need): one row per logged call attempt. Calls are facts about the past, so
// they are never updated; they go when their lead goes.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table lead_calls (
      org_id text not null,
      id text not null,
      lead_id text not null,
      outcome text not null check (outcome in ('CONTACTED', 'NO_ANSWER', 'BUSY', 'SWITCHED_OFF', 'OUT_OF_SERVICE', 'WRONG_NUMBER')),
      notes text,
      next_call_at timestamptz(3),
      logged_by text not null,
      created_at timestamptz(3) not null default now(),
      primary key (org_id, id),
      foreign key (org_id, lead_id) references leads (org_id, id) on delete cascade
    );
    create index lead_calls_org_lead_idx on lead_calls (org_id, lead_id, created_at desc, id desc);
    create index lead_calls_org_created_idx on lead_calls (org_id, created_at);

    -- When a lead was converted: for conversion rates over a date range (not part of the Lead object).
    alter table leads add column converted_at timestamptz(3);

    create index contacts_org_created_idx on contacts (org_id, created_at desc, id desc);
    create index tasks_org_assignee_idx on tasks (org_id, assigned_to_id);
    create index tasks_org_lead_idx on tasks (org_id, lead_id);
    create index tasks_org_client_idx on tasks (org_id, client_id);
    create index org_members_org_name_idx on org_members (org_id, name, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop index org_members_org_name_idx; drop index tasks_org_client_idx; drop index tasks_org_lead_idx;
    drop index tasks_org_assignee_idx; drop index contacts_org_created_idx; alter table leads drop column converted_at;
    drop table lead_calls;
  `);
}
