import type { Knex } from 'knex';

// The answers of POST calls sent with an Idempotency-Key, kept 24 hours so a retry replays the
// answer instead of acting twice. Scoped to the caller (an API key's or playground token's id, so
// no foreign key: tokens have no table). `response_body` is `json`, not `jsonb`, so the text the
// client got is kept exactly as sent (jsonb would reorder keys). The expiry index does not lead
// with org_id: the cleanup deletes expired rows of every workspace at once.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table idempotency_keys (
      org_id text not null references organisations (id) on delete cascade,
      principal_id text not null,
      idempotency_key text not null,
      procedure text not null,
      fingerprint text not null,
      response_status smallint not null,
      response_body json not null,
      created_at timestamptz(3) not null default now(),
      expires_at timestamptz(3) not null,
      primary key (org_id, principal_id, idempotency_key)
    );
    create index idempotency_keys_expires_idx on idempotency_keys (expires_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table idempotency_keys;');
}
