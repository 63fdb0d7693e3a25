import type { Knex } from 'knex';

// apiKeys.roll: a key's replaced secret keeps working until previous_secret_expires_at, so an
// integration can switch without downtime. Its hash stays in api_key_secrets (the lookup index)
// while it may work; authentication compares it and checks the end on every request. Nullable
// columns without defaults: no rewrite of the table, and on Citus the ALTER reaches every shard.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table api_keys
      add column previous_secret_hash text,
      add column previous_prefix text,
      add column previous_secret_expires_at timestamptz(3)
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table api_keys
      drop column previous_secret_hash,
      drop column previous_prefix,
      drop column previous_secret_expires_at
  `);
}
