import type { Knex } from 'knex';

// Tables only for now: their procedures come with the routers of a later issue.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table tasks (
      org_id text not null references organisations (id) on delete cascade,
      id text not null,
      title text not null,
      description text,
      status text not null default 'OPEN' check (status in ('OPEN', 'DONE')),
      due_at timestamptz(3),
      completed_at timestamptz(3),
      lead_id text,
      client_id text,
      assigned_to_id text,
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (org_id, id),
      foreign key (org_id, lead_id) references leads (org_id, id) on delete set null (lead_id),
      foreign key (org_id, client_id) references clients (org_id, id) on delete set null (client_id),
      foreign key (org_id, assigned_to_id) references org_members (org_id, id) on delete set null (assigned_to_id)
    );
    create index tasks_org_due_idx on tasks (org_id, due_at, created_at desc, id desc);

    create table invoices (
      org_id text not null references organisations (id) on delete cascade,
      id text not null,
      client_id text not null,
      currency char(3) not null check (currency ~ '^[A-Z]{3}$'),
      status text not null default 'DRAFT' check (status in ('DRAFT', 'SENT', 'PAID', 'VOID')),
      due_date date not null,
      sent_at timestamptz(3),
      paid_at timestamptz(3),
      voided_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (org_id, id),
      foreign key (org_id, client_id) references clients (org_id, id)
    );
    create index invoices_org_created_idx on invoices (org_id, created_at desc, id desc);
    create index invoices_org_client_idx on invoices (org_id, client_id);

    -- Money is integer minor units (1999 GBP = 19.99): never floating point.
    create table invoice_line_items (
      org_id text not null,
      id text not null,
      invoice_id text not null,
      position integer not null,
      description text not null,
      quantity integer not null check (quantity > 0),
      unit_price bigint not null check (unit_price >= 0),
      primary key (org_id, id),
      foreign key (org_id, invoice_id) references invoices (org_id, id) on delete cascade
    );
    create index invoice_line_items_org_invoice_idx on invoice_line_items (org_id, invoice_id, position);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table invoice_line_items; drop table invoices; drop table tasks;');
}
