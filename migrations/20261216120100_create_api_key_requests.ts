import type { Knex } from 'knex';

// Each API key's request log (apiKeys.getRequests, src/api-key-requests): one row per request a
// key authenticated, written in batches by a background writer, never by the request itself.
// No body, input, header, secret or raw path: `procedure` is a procedure name or a REST route
// pattern. `id` is time-ordered (its first characters are the time in hex, src/api-key-requests/
// request-id.ts) and compared byte-wise (collate "C"), so a key's page is one index range and the
// cursor is the last id. No primary key: nothing looks a row up by id, and an index fewer keeps
// the batch insert cheap. Distributed by org_id beside api_keys on Citus.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table api_key_requests (
      org_id text not null,
      key_id text not null,
      id text collate "C" not null,
      at timestamptz(3) not null,
      method text not null,
      procedure text not null,
      status smallint not null,
      error_code text,
      duration_ms real not null,
      request_id text not null,
      client_address text
    );
    -- apiKeys.getRequests: a key's requests newest first (its filters read along this range).
    create index api_key_requests_key_idx on api_key_requests (org_id, key_id, id desc);
    -- The retention purge: rows arrive in time order, so a BRIN index finds the old ones for next to nothing per insert.
    create index api_key_requests_at_idx on api_key_requests using brin (at);
  `);
  const { rows } = await knex.raw(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  if (rows[0].citus) {
    await knex.raw(`select create_distributed_table('api_key_requests', 'org_id', colocate_with => 'api_keys')`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table api_key_requests');
}
