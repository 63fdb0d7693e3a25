import type { Knex } from 'knex';
import { LEAD_STATUSES } from '../src/domain/lead-status';

const statusList = LEAD_STATUSES.map((s) => `'${s}'`).join(', ');

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table contacts (
      org_id text not null references organisations (id) on delete cascade,
      id text not null,
      name text not null,
      phones text[] not null default '{}',
      emails text[] not null default '{}',
      company text,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (org_id, id)
    );

    create table clients (
      org_id text not null references organisations (id) on delete cascade,
      id text not null,
      name text not null,
      contact_id text,
      company text,
      email text,
      phone text,
      notes text,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (org_id, id),
      foreign key (org_id, contact_id) references contacts (org_id, id) on delete set null (contact_id)
    );
    create index clients_org_created_idx on clients (org_id, created_at desc, id desc);

    create table leads (
      org_id text not null references organisations (id) on delete cascade,
      id text not null,
      contact_id text not null,
      status text not null default 'NOT_CONTACTED' check (status in (${statusList})),
      source text,
      notes text,
      next_call_at timestamptz(3),
      assigned_to_id text,
      client_id text,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (org_id, id),
      foreign key (org_id, contact_id) references contacts (org_id, id),
      foreign key (org_id, assigned_to_id) references org_members (org_id, id) on delete set null (assigned_to_id),
      foreign key (org_id, client_id) references clients (org_id, id) on delete set null (client_id)
    );
    -- One index per list filter, each in the list's own order, so a page is an index range scan.
    create index leads_org_order_idx on leads (org_id, next_call_at, created_at desc, id desc);
    create index leads_org_status_order_idx on leads (org_id, status, next_call_at, created_at desc, id desc);
    create index leads_org_assignee_order_idx on leads (org_id, assigned_to_id, next_call_at, created_at desc, id desc);
    create index leads_org_contact_idx on leads (org_id, contact_id);
    create index leads_org_client_idx on leads (org_id, client_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table leads; drop table clients; drop table contacts;');
}
