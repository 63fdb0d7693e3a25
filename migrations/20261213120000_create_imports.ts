import type { Knex } from 'knex';

// Import jobs (docs/importing-and-exporting.md): an uploaded file's rows, the job's state and its
// failed rows. Everything is keyed by workspace first, so on Citus each table is distributed by
// org_id beside the workspace's other tables and every statement of an import is single-shard.
// - imports: the job. Its cursor (cursor_chunk, cursor_record: the rows done) moves in the same
//   transaction as each batch's leads and counters, so a job resumed after a crash starts where
//   the last committed batch ended. A worker holds it with a lease (lease_token, locked_until).
// - import_chunks: the file's rows as the upload parsed them, about 1 MB a chunk, deleted when the
//   job ends (what the job reads instead of the file: each chunk starts on a row).
// - import_errors: the rows that failed, with the row as sent (personal data): deleted with the
//   import after IMPORTS_RETENTION_DAYS, and reachable by a workspace's erasure through org_id.
// No foreign key to organisations, as for the workspace's other data (migration
// 20261211120100): a reference would lock the workspace's row in every batch.
export const IMPORT_TABLES = ['imports', 'import_chunks', 'import_errors'] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table imports (
      org_id text not null,
      id text not null,
      resource text not null check (resource in ('leads')),
      mode text not null check (mode in ('create', 'upsert')),
      dry_run boolean not null,
      format text not null check (format in ('csv', 'ndjson')),
      status text not null check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
      actor_kind text not null,
      actor_id text not null,
      columns text[],
      rows_total integer not null,
      rows_processed integer not null default 0,
      rows_created integer not null default 0,
      rows_updated integer not null default 0,
      rows_failed integer not null default 0,
      errors_recorded integer not null default 0,
      cursor_chunk integer not null default 0,
      cursor_record integer not null default 0,
      lease_token text,
      locked_until timestamptz,
      attempts integer not null default 0,
      failure text,
      created_at timestamptz not null default now(),
      started_at timestamptz,
      finished_at timestamptz,
      primary key (org_id, id)
    );
    -- The queue: a workspace's waiting and running jobs, oldest first.
    create index imports_active_idx on imports (org_id, created_at, id) where status in ('queued', 'running');
    -- The list, newest first.
    create index imports_org_created_idx on imports (org_id, created_at desc, id desc);
    create table import_chunks (
      org_id text not null,
      import_id text not null,
      seq integer not null,
      records integer not null,
      data bytea not null,
      primary key (org_id, import_id, seq)
    );
    create table import_errors (
      org_id text not null,
      import_id text not null,
      line integer not null,
      issue integer not null,
      field text not null,
      message text not null,
      row_text text not null,
      primary key (org_id, import_id, line, issue)
    );
  `);
  const { rows } = await knex.raw(`select exists (select 1 from pg_extension where extname = 'citus') as citus`);
  if (rows[0].citus) {
    // Distributed before the foreign keys exist: Citus refuses a distributed table referenced by a local one.
    for (const table of IMPORT_TABLES) {
      await knex.raw(`select create_distributed_table(?, 'org_id', colocate_with => 'organisations')`, [table]);
    }
  }
  for (const table of ['import_chunks', 'import_errors']) {
    await knex.raw(`alter table ${table} add foreign key (org_id, import_id) references imports (org_id, id) on delete cascade`);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table import_errors, import_chunks, imports');
}
