import type { Knex } from 'knex';
import type pg from 'pg';
import { createDb, namedStatementsOn, readTimeoutFor, type Db, type DbOptions, type PoolClient } from './knex';
import { withStatementName, statementNameOf } from './prepared-statements';

/**
 * The hot reads' speed trick, used by the leads' data path alone (`getById`, and the list's first
 * and keyset pages in src/db/leads/compiled-page.ts), which is given the database handle's
 * `HotReads` (connect.ts). Three parts, each measured against the plain knex query on the
 * million-lead workspace (2026-11-26, on a busy 2-core machine):
 * - compiled once per shape: knex builds and compiles a page's nested queries on every call; with
 *   stand-ins for its values it is built once and each call binds its own values (a first page:
 *   230-240 µs of Node's CPU instead of 335-365 µs compiled per call, 10 at a time in one process);
 * - run straight on a pooled connection, through pg's callback form: knex's runner added 30-40 µs;
 * - on a pool of its own (`HotReads.onPoolOfTheirOwn`) without pg's query_timeout, whose closure
 *   kept each answer alive past its request (`runOn`): over HTTP at 50 connections the same
 *   statements through knex on the main pool cost 100-250 µs more CPU per getById or first page.
 * Served over HTTP, getById spent 254-359 µs of CPU a request with all three and 311-576 µs
 * without; a REST first page 548-891 µs against 727-1542 µs. To remove it: build the statements
 * with knex in getById and the list's `pageRows` (src/db/leads), drop `hotReads` from the database
 * handle (connect.ts) and from where it is passed (app.ts, dispatch, the procedure context),
 * `readsTimedByCaller` from knex.ts, and delete this file and src/db/leads/compiled-page.ts.
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

/** What `compiledPerShape` answers: one call's statement, bound and ready to run (`HotReads.rows`). */
export interface BoundStatement {
  /** The text as the driver sends it (`$n` placeholders), and this call's values. */
  readonly sql: string;
  readonly bindings: readonly unknown[];
  /** knex's `?` form, for `raw` on a transaction. */
  readonly knexSql: string;
  /** The name it is prepared under where the pool allows it; none for a statement planned on every call. */
  readonly name: string | undefined;
}

/**
 * `build` made into a statement compiled once per shape: `build` must give the same text and
 * bindings for the same arguments, and take every value that varies from call to call through
 * `CallValues.of` (tests/performance-contracts/compiled-page.property.test.ts holds the leads list's to it).
 * `db` only builds it (any pg knex will do). Named for preparing unless `named` is false (a
 * statement whose best plan depends on its values). Holds texts by shape, never a pool.
 * With `inText`, the call values at those indexes are written into the text as literals (each
 * must be plain `[A-Za-z0-9_]` text) and the statement is named: a statement of those values' own,
 * whose cached plan PostgreSQL makes with their statistics.
 */
export function compiledPerShape<Args>(build: (db: Db, args: Args) => Knex.QueryBuilder | Knex.Raw, { named = true }: { named?: boolean } = {}) {
  const byShape = new Map<string, Compiled>();
  return (db: Db, args: Args, values: CallValues, inText?: readonly number[]): BoundStatement => {
    const literals = new Map<number, string>();
    for (const index of inText ?? []) {
      const literal = values.values[index];
      if (!(typeof literal === 'string' && PLAIN_LITERAL.test(literal))) throw new Error('only plain text is written into a statement');
      literals.set(index, literal);
    }
    const shape = literals.size === 0 ? JSON.stringify(args) : `${JSON.stringify(args)}\u0000${[...literals.values()].join('\u0000')}`;
    let compiled = byShape.get(shape);
    if (compiled === undefined) {
      compiled = compile(build(db, args), values.values.length);
      if (literals.size > 0) compiled = withValuesInText(compiled, literals);
      if (byShape.size < MAX_SHAPES) byShape.set(shape, compiled);
    }
    const bindings = compiled.bindings.map((b) => ('value' in b ? values.values[b.value] : b.constant));
    return { sql: compiled.nativeSql, bindings, knexSql: compiled.sql, name: named || literals.size > 0 ? compiled.name : undefined };
  };
}

/** Text a literal may hold as it is: ids (`org_...`), never a quote or a backslash. */
const PLAIN_LITERAL = /^[A-Za-z0-9_]+$/;

/** `compiled` with each call value of `literals` written into its text as `'literal'`, the other placeholders renumbered. */
function withValuesInText(compiled: Compiled, literals: ReadonlyMap<number, string>): Compiled {
  // Each placeholder's number after the rewrite, in the order of the bindings; a string: its literal.
  const numbers: (number | string)[] = [];
  let kept = 0;
  for (const b of compiled.bindings) numbers.push('value' in b && literals.has(b.value) ? literals.get(b.value)! : ++kept);
  const rewrite = (sql: string, placeholder: RegExp, as: (n: number) => string) => {
    let seen = 0;
    const out = sql.replace(placeholder, () => {
      const n = numbers[seen++];
      if (n === undefined) throw new Error('a statement\'s placeholders and its bindings disagree');
      return typeof n === 'string' ? `'${n}'` : as(n);
    });
    if (seen !== numbers.length) throw new Error('a statement\'s placeholders and its bindings disagree');
    return out;
  };
  // The driver's `$n` appear in the bindings' order, as knex's `?` do.
  const nativeSql = rewrite(compiled.nativeSql, /\$\d+/g, (n) => `$${n}`);
  return {
    sql: rewrite(compiled.sql, /\?/g, () => '?'),
    nativeSql,
    bindings: compiled.bindings.filter((_, i) => typeof numbers[i] === 'number'),
    name: statementNameOf(nativeSql),
  };
}

/**
 * Where the hot reads run, owned by the database handle (connect.ts) and passed to the leads' data
 * path: a pool of their own without pg's query_timeout, whose callers time their reads, or, without
 * named statements or in an app built on one pool (tests, bench servers), the main pool. No session
 * forces generic plans: on Citus a forced generic plan of a page or getById fails ("could not
 * create distributed plan"), and on one PostgreSQL it saved database CPU on the unfiltered first
 * page alone.
 */
export class HotReads {
  /** Whether a named statement is sent under its name (`namedStatementsOn` the pool). */
  readonly namedStatements: boolean;

  private constructor(
    /** The main pool: every other statement's. */
    readonly db: Db,
    /** The pool the hot reads run on outside a transaction: their own, or `db`. */
    readonly pool: Db,
    /** How long a read waits for its answer when `pool` leaves that to its callers; else pg's query_timeout does. */
    readonly readTimeoutMs: number | undefined,
  ) {
    this.namedStatements = namedStatementsOn(pool);
  }

  /** On `db` itself, timed by pg's query_timeout as its other statements are. */
  static on(db: Db): HotReads {
    return new HotReads(db, db, undefined);
  }

  /**
   * On a pool of their own, made with `options` (the main pool's, so the same size: up to twice
   * its connections in all) but without pg's query_timeout: each read gives up after the same time.
   */
  static onPoolOfTheirOwn(db: Db, options: DbOptions): HotReads {
    return new HotReads(db, createDb({ ...options, readsTimedByCaller: true }), readTimeoutFor(options.statementTimeoutMs));
  }

  /**
   * `statement`'s rows, parsed with `types` when given. When the caller's `db` is a transaction, on
   * its connection (to see its writes, and never wait for another connection while holding one).
   * Otherwise straight on a connection of `pool`: knex's query runner would build again what is
   * already built. It still tells knex's `query` listeners, as knex would.
   */
  async rows<Row>(db: Db, statement: BoundStatement, types?: pg.CustomTypesConfig): Promise<Row[]> {
    const { sql, bindings, name } = statement;
    if (db.isTransaction) {
      const raw = db.raw(statement.knexSql, bindings as Knex.RawBinding[]);
      const query = name === undefined ? raw : withStatementName(db, raw, name);
      if (types) query.options({ types });
      return ((await query) as unknown as { rows: Row[] }).rows;
    }
    const client = this.pool.client as unknown as PoolClient;
    const connection = await client.acquireConnection();
    try {
      const naming = name !== undefined && this.namedStatements ? { name } : {};
      client.emit('query', { method: 'raw', sql, bindings, options: naming });
      const config = { text: sql, values: bindings as unknown[], ...naming, ...(types && { types }) };
      const result = await runOn<Row & pg.QueryResultRow>(connection, config, this.readTimeoutMs);
      return result.rows;
    } finally {
      await client.releaseConnection(connection);
    }
  }

  /** Every pool the service's statements run on, for /metrics and /readyz: `db`, and their own if they have one. */
  pools(): Db[] {
    return this.pool === this.db ? [this.db] : [this.db, this.pool];
  }

  /** Closes their own pool; `db` is its owner's to close. */
  async close(): Promise<void> {
    if (this.pool !== this.db) await this.pool.destroy();
  }
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
