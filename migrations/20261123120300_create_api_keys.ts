import type { Knex } from 'knex';

// The secret itself is never stored: only its SHA-256 hash (looked up on every request that
// misses the key cache) and a short prefix that identifies the key in listings.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table api_keys (
      org_id text not null references organisations (id) on delete cascade,
      id text not null,
      member_id text,
      name text not null,
      scopes text[] not null,
      prefix text not null,
      secret_hash text not null,
      expires_at timestamptz(3),
      revoked_at timestamptz(3),
      last_used_at timestamptz(3),
      created_at timestamptz(3) not null default now(),
      primary key (org_id, id),
      foreign key (org_id, member_id) references org_members (org_id, id) on delete set null (member_id)
    );
    create unique index api_keys_secret_hash_key on api_keys (secret_hash);
    create index api_keys_org_created_idx on api_keys (org_id, created_at desc);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table api_keys;');
}
