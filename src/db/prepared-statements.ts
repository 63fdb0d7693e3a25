import { createHash } from 'node:crypto';
import { namedStatementsOn, type Db } from './knex';

/** Names by SQL text, so a hot query hashes its text once; bounded, as a name costs a little memory per connection too. */
const namesByText = new Map<string, string>();
const MAX_NAMES = 1000;

interface Preparable {
  toSQL(): { sql: string };
  options(options: Readonly<Record<string, unknown>>): unknown;
}

/**
 * Runs `query` as a named prepared statement where the pool allows it: PostgreSQL parses its text
 * once per connection, and after five calls keeps one generic plan if that costs no more than
 * planning each call with its values. Only for queries whose best plan does not depend on their
 * values: a lead list's page does (a large workspace's wants the list's index walked in order, a
 * small one's a read and sort; a search's term, an OFFSET), so pages are planned on every call.
 * The name is a hash of the text: two texts never share one.
 */
export function prepared<Q extends Preparable>(db: Db, query: Q): Q {
  if (!namedStatementsOn(db)) return query;
  const { sql } = query.toSQL();
  let name = namesByText.get(sql);
  if (name === undefined) {
    name = statementNameOf(sql);
    if (namesByText.size < MAX_NAMES) namesByText.set(sql, name);
  }
  query.options({ name });
  return query;
}

/** The name a statement's text is prepared under: a hash of the text, so two texts never share one. */
export function statementNameOf(sql: string): string {
  return `wsapi_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
}

/** `prepared` for a caller that already named the text (hot-reads.ts names each shape once). */
export function withStatementName<Q extends Preparable>(db: Db, query: Q, name: string): Q {
  if (namedStatementsOn(db)) query.options({ name });
  return query;
}
