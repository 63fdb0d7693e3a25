import type { Knex } from 'knex';
import type pg from 'pg';
import { namedStatementsOn, poolMark, readTimeoutOf, type Db } from './knex';
import { withStatementName, statementNameOf } from './prepared-statements';

/**
 * The hot reads' speed trick, used by the leads' data path alone (`getById`, and the list's first
 * and keyset pages in src/db/leads/compiled-page.ts). Three parts, each measured against the plain
 * knex query on the million-lead workspace (2026-11-26, on a busy 2-core machine):
 * - compiled once per shape: knex builds and compiles a page's nested queries on every call; with
 *   stand-ins for its values it is built once and each call binds its own values (a first page:
 *   230-240 µs of Node's CPU instead of 335-365 µs compiled per call, 10 at a time in one process);
 * - run straight on a pooled connection, through pg's callback form: knex's runner added 30-40 µs;
 * - on a pool of its own (connect.ts) without pg's query_timeout, whose closure kept each answer
 *   alive past its request (below): over HTTP at 50 connections the same statements through knex
 *   on the main pool cost 100-250 µs more CPU per getById or first page.
 * Served over HTTP, getById spent 254-359 µs of CPU a request with all three and 311-576 µs
 * without; a REST first page 548-891 µs against 727-1542 µs. To remove it: build the statements
 * with knex in getById and the list's `pageRows`, drop the second pool from connect.ts (and its
 * options from knex.ts), and delete this file.
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
  /** The driver's `$n` form, sent as it is. */
  nativeSql: string;
  bindings: Binding[];
  name: string;
}

/** Shapes kept per statement; a caller that sends more (every page size, say) compiles the rest per call. */
const MAX_SHAPES = 500;

function compile(query: Knex.QueryBuilder | Knex.Raw, valueCount: number): Compiled {
  const built = query.toSQL();
  const { sql, bindings } = built;
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
  const nativeSql = built.toNative().sql;
  return { sql, nativeSql, bindings: compiled, name: statementNameOf(sql) };
}

/** Pools (by their mark, which their transactions share) whose compiled statements run on another pool. */
const compiledStatementPools = new WeakMap<object, Db>();

/**
 * Sends `db`'s compiled statements, outside transactions, to `pool`: a pool without pg's
 * query_timeout, whose callers time their own reads (connect.ts, `runOn`). A transaction's
 * statements stay on its connection, to see its writes. (Its sessions no longer force generic
 * plans: on Citus a forced generic plan of a page or getById fails, "could not create distributed
 * plan", and on one PostgreSQL it saved database CPU on the unfiltered first page alone.)
 */
export function runCompiledStatementsOn(db: Db, pool: Db): void {
  compiledStatementPools.set(poolMark(db), pool);
}

/** The pool `db`'s compiled statements run on (`db` itself when none was given, or in a transaction). */
export function compiledStatementsPoolOf(db: Db): Db {
  if (db.isTransaction) return db;
  return compiledStatementPools.get(poolMark(db)) ?? db;
}

/** Every pool `db`'s statements may run on: itself, and the one its compiled statements run on. */
export function poolsOf(db: Db): Db[] {
  return [...new Set([db, compiledStatementsPoolOf(db)])];
}

/** What `compiledPerShape` answers: one call's statement, bound and ready to run. */
export interface BoundStatement {
  /** The text as the driver sends it (`$n` placeholders), and this call's values. */
  readonly sql: string;
  readonly bindings: readonly unknown[];
  /** Its rows, with `types` to parse them when given. */
  rows<Row>(types?: pg.CustomTypesConfig): Promise<Row[]>;
}

/** knex's client, as far as running a statement on one of its pooled connections needs. */
interface PoolClient {
  acquireConnection(): Promise<pg.Client>;
  releaseConnection(connection: pg.Client): Promise<unknown>;
  emit(event: 'query', query: object): boolean;
}

/**
 * `build` made into a statement compiled once per shape: `build` must give the same text and
 * bindings for the same arguments, and take every value that varies from call to call through
 * `CallValues.of` (tests/property/compiled-page.property.test.ts holds the leads list's to it).
 * Runs named for preparing where the pool allows it (prepared-statements.ts), unless `named` is
 * false (a statement whose best plan depends on its values), on the pool
 * `runCompiledStatementsOn` gave. Outside a transaction it runs straight on a pooled connection:
 * knex's query runner builds again what is already built. It still tells knex's `query`
 * listeners, as knex would.
 */
export function compiledPerShape<Args>(build: (db: Db, args: Args) => Knex.QueryBuilder | Knex.Raw, { named = true }: { named?: boolean } = {}) {
  const byShape = new Map<string, Compiled>();
  return (db: Db, args: Args, values: CallValues): BoundStatement => {
    const shape = JSON.stringify(args);
    let compiled = byShape.get(shape);
    if (compiled === undefined) {
      compiled = compile(build(db, args), values.values.length);
      if (byShape.size < MAX_SHAPES) byShape.set(shape, compiled);
    }
    const bindings = compiled.bindings.map((b) => ('value' in b ? values.values[b.value] : b.constant));
    const session = compiledStatementsPoolOf(db);
    const readTimeout = readTimeoutOf(session);
    const { sql, nativeSql } = compiled;
    const name = named ? compiled.name : undefined;
    return {
      sql: nativeSql,
      bindings,
      async rows<Row>(types?: pg.CustomTypesConfig): Promise<Row[]> {
        if (session.isTransaction) {
          // A transaction's statements go on its own connection, which knex holds.
          const raw = session.raw(sql, bindings as Knex.RawBinding[]);
          const query = name === undefined ? raw : withStatementName(session, raw, name);
          if (types) query.options({ types });
          return ((await query) as unknown as { rows: Row[] }).rows;
        }
        const client = session.client as unknown as PoolClient;
        const connection = await client.acquireConnection();
        try {
          const naming = name !== undefined && namedStatementsOn(session) ? { name } : {};
          client.emit('query', { method: 'raw', sql: nativeSql, bindings, options: naming });
          const config = { text: nativeSql, values: bindings as unknown[], ...naming, ...(types && { types }) };
          const result = await runOn<Row & pg.QueryResultRow>(connection, config, readTimeout);
          return result.rows;
        } finally {
          await client.releaseConnection(connection);
        }
      },
    };
  };
}

/**
 * Runs `config` on `connection` through the driver's callback form, as knex does, giving up with
 * pg's own "Query read timeout" after `readTimeoutMs` when the pool leaves timing to its callers.
 * pg's promise form, and its `query_timeout`, each make a closure over the query inside
 * `Client.query`; with either, a list page's answer outlived its request, even one request at a
 * time: 57 KB of the 130 KB a page allocates was promoted into old space, 9 KB without them, and
 * old space filled with pages already sent (bench/gc-survival.ts).
 */
function runOn<Row extends pg.QueryResultRow>(connection: pg.Client, config: pg.QueryConfig, readTimeoutMs: number | undefined): Promise<pg.QueryResult<Row>> {
  return new Promise((resolve, reject) => {
    // Arguments rather than a closure, for the same reason.
    const timer = readTimeoutMs === undefined ? undefined : setTimeout(giveUp, readTimeoutMs, reject);
    connection.query<Row>(config, (err: Error | null, result: pg.QueryResult<Row>) => {
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(result);
    });
  });
}

/**
 * The answer never came (a silent network path): the call fails as pg's query_timeout fails it
 * (503), and the connection, still waiting, is not idle, so the pool replaces it (knex.ts).
 */
function giveUp(reject: (err: Error) => void): void {
  reject(new Error('Query read timeout'));
}
