import knex, { type Knex } from 'knex';
import pg from 'pg';

export type Db = Knex;

// `date` columns (invoice due dates) are calendar days: keep them as 'YYYY-MM-DD' text instead of
// letting pg turn them into a Date at local midnight, which shifts with the server's time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

export interface DbOptions {
  url: string;
  poolMax: number;
  /** How long a request waits for a pooled connection before failing with 503. */
  acquireTimeoutMs?: number;
}

export function createDb({ url, poolMax, acquireTimeoutMs = 5000 }: DbOptions): Db {
  return knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: acquireTimeoutMs,
  });
}
