import type { Knex } from 'knex';
import type { Db } from './knex';
import { withStatementName, statementNameOf, poolMark } from './prepared-statements';

/**
 * Statements compiled once per shape. Knex builds a query's tree and compiles it to SQL on every
 * call: for the leads list's first page that was 110-173 µs of Node's CPU, for a cursor page
 * 216-303 µs, against 6-12 µs to bind a compiled text (bench/statement-build.ts). A hot
 * statement whose text depends only on its shape (which filters, the page size) is built and
 * compiled once per shape with stand-ins for its values, and each call binds its own values.
 */

/** What a value stands in as while its statement is built: text no real value can hold (PostgreSQL text has no NUL). */
const standInOf = (index: number) => `\u0000value ${index}\u0000`;
const STAND_IN = /^\u0000value (\d+)\u0000$/;

/**
 * One call's values. `of` answers the stand-in that the builder writes in the value's place, so the
 * builder's arguments hold only stand-ins and what shapes the statement: serialised, they name the shape.
 */
export class CallValues {
  readonly values: unknown[] = [];

  of<T>(value: T): T {
    this.values.push(value);
    return standInOf(this.values.length - 1) as unknown as T;
  }
}

type Binding = { value: number } | { constant: unknown };

interface Compiled {
  /** knex's `?` form, which `db.raw` takes as it is. */
  sql: string;
  bindings: Binding[];
  name: string;
}

/** Shapes kept per statement; a caller that sends more (every page size, say) compiles the rest per call. */
const MAX_SHAPES = 500;

function compile(query: Knex.QueryBuilder | Knex.Raw, valueCount: number): Compiled {
  const { sql, bindings } = query.toSQL();
  // A stand-in written into the text, or into a longer binding, would bind the first call's value forever.
  if (sql.includes('\u0000')) throw new Error('a call value was written into the statement text');
  const seen = new Set<number>();
  const compiled = bindings.map((binding): Binding => {
    const standIn = typeof binding === 'string' ? STAND_IN.exec(binding) : null;
    if (standIn) {
      seen.add(Number(standIn[1]));
      return { value: Number(standIn[1]) };
    }
    if (typeof binding === 'string' && binding.includes('\u0000')) throw new Error('a call value was changed into another binding');
    return { constant: binding };
  });
  if (seen.size !== valueCount) throw new Error(`the statement binds ${seen.size} of its ${valueCount} call values`);
  return { sql, bindings: compiled, name: statementNameOf(sql) };
}

/** Pools (by their mark, which their transactions share) whose compiled statements run on another pool. */
const compiledStatementPools = new WeakMap<object, Db>();

/**
 * Sends `db`'s compiled statements, outside transactions, to `pool`: a pool whose sessions force
 * generic plans (connect.ts). A compiled statement's text fixes its plan's shape, so PostgreSQL's
 * per-call re-planning buys nothing; on the million-lead workspace it re-planned every first page
 * (its generic plan, costed for an average workspace, looked dearer), about a fifth of the page's
 * database CPU (bench/generic-plans.ts). A whole pool cannot force them: its searches must be
 * planned for their terms. A transaction's statements stay on its connection, to see its writes.
 */
export function runCompiledStatementsOn(db: Db, pool: Db): void {
  const mark = poolMark(db);
  if (mark) compiledStatementPools.set(mark, pool);
}

/** The pool `db`'s compiled statements run on (`db` itself when none was given, or in a transaction). */
export function compiledStatementsPoolOf(db: Db): Db {
  if (db.isTransaction) return db;
  const mark = poolMark(db);
  return (mark && compiledStatementPools.get(mark)) || db;
}

/** Every pool `db`'s statements may run on: itself, and the one its compiled statements run on. */
export function poolsOf(db: Db): Db[] {
  return [...new Set([db, compiledStatementsPoolOf(db)])];
}

/**
 * `build` made into a statement compiled once per shape: `build` must give the same text and
 * bindings for the same arguments, and take every value that varies from call to call through
 * `CallValues.of` (tests/property/compiled-statements.property.test.ts holds the leads list's to it).
 * Answers a raw statement, named for preparing where the pool allows it (prepared-statements.ts),
 * on the pool `runCompiledStatementsOn` gave.
 */
export function compiledPerShape<Args>(build: (db: Db, args: Args) => Knex.QueryBuilder | Knex.Raw) {
  const byShape = new Map<string, Compiled>();
  return (db: Db, args: Args, values: CallValues): Knex.Raw => {
    const shape = JSON.stringify(args);
    let compiled = byShape.get(shape);
    if (compiled === undefined) {
      compiled = compile(build(db, args), values.values.length);
      if (byShape.size < MAX_SHAPES) byShape.set(shape, compiled);
    }
    const bindings = compiled.bindings.map((b) => ('value' in b ? values.values[b.value] : b.constant));
    const session = compiledStatementsPoolOf(db);
    return withStatementName(session, session.raw(compiled.sql, bindings as Knex.RawBinding[]), compiled.name);
  };
}
