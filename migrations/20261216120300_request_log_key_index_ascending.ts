import type { Knex } from 'knex';

// The request log's index of a key's requests, in ascending id order. The writer inserts a key's
// rows in id order, so in a descending index every insert landed at the left end of the key's
// range, where nbtree halves a full page; ascending, it lands at the right end, where nbtree keeps
// the left page full (the split for localised increasing inserts). The index is about half the
// size and an insert costs PostgreSQL about half what it did (docs/performance.md, "Per-key
// request log"); apiKeys.getRequests reads the same range backwards.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index api_key_requests_key_idx');
  await knex.raw('create index api_key_requests_key_idx on api_key_requests (org_id, key_id, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index api_key_requests_key_idx');
  await knex.raw('create index api_key_requests_key_idx on api_key_requests (org_id, key_id, id desc)');
}
