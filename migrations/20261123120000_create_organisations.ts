import type { Knex } from 'knex';

// Every workspace table's primary key and indexes lead with org_id, so the schema can be sharded
// by organisation later (Citus distributes on org_id). Timestamps keep millisecond precision,
// exactly what a JavaScript Date holds, so a value read back compares equal to the one written.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table organisations (
      id text primary key,
      name text not null,
      tier text not null check (tier in ('FREE', 'PRO', 'BUSINESS')),
      features text[] not null default '{}',
      phone_region text not null default 'GB' check (phone_region ~ '^[A-Z]{2}$'),
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now()
    );

    create table org_members (
      org_id text not null references organisations (id) on delete cascade,
      id text not null,
      name text not null,
      email text not null,
      permissions text[] not null default '{}',
      created_at timestamptz(3) not null default now(),
      updated_at timestamptz(3) not null default now(),
      primary key (org_id, id)
    );
    create unique index org_members_org_email_key on org_members (org_id, lower(email));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table org_members; drop table organisations;');
}
