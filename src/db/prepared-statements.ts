import { createHash } from 'node:crypto';

/**
 * Pools whose statements may be named: each connection has a session of its own (not so behind
 * PgBouncer older than 1.21 in transaction mode, where DB_NAMED_STATEMENTS=false).
 */
const poolsWithNamedStatements = new WeakSet<object>();

/**
 * Marks the pool by its client's config object, which knex hands on to every transaction's
 * client: a query inside a transaction (a write's outbox insert, say) is prepared too.
 */
export const poolMark = (db: object): object | undefined => (db as { client?: { config?: object } }).client?.config;

export function allowNamedStatements(db: object): void {
  const mark = poolMark(db);
  if (mark) poolsWithNamedStatements.add(mark);
}

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
export function prepared<Q extends Preparable>(db: object, query: Q): Q {
  if (!allowsNamedStatements(db)) return query;
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

/** `prepared` for a caller that already named the text (src/db/leads/compiled-page.ts names each shape once). */
export function withStatementName<Q extends Preparable>(db: object, query: Q, name: string): Q {
  if (allowsNamedStatements(db)) query.options({ name });
  return query;
}

/** Whether `db`'s pool prepares named statements (each of its connections has a session of its own). */
export function allowsNamedStatements(db: object): boolean {
  const mark = poolMark(db);
  return mark !== undefined && poolsWithNamedStatements.has(mark);
}
