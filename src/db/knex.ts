import knex, { type Knex } from 'knex';
import pg from 'pg';

export type Db = Knex;

// `date` columns (invoice due dates) are calendar days: keep them as 'YYYY-MM-DD' text instead of
// letting pg turn them into a Date at local midnight, which shifts with the server's time zone.
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

/** DB_ACQUIRE_TIMEOUT_MS's default (config.ts), for pools made outside the service (CLI, tests, bench). */
const DEFAULT_ACQUIRE_TIMEOUT_MS = 3000;

/**
 * How much longer than the statement timeout the driver waits for an answer before giving up on
 * the socket: the server cancels first, so this fires only when the connection itself is dead.
 */
const QUERY_TIMEOUT_SLACK_MS = 1000;

/**
 * The statement timeout of the few statements that may rightly run long on a large workspace (a
 * search's count of a common term): the pool's own (DB_STATEMENT_TIMEOUT_MS, 2 s by default) is
 * also how soon a hung node's requests give up, and must stay short.
 */
export const LONG_STATEMENT_TIMEOUT_MS = 15_000;

/** Given to each long statement's query (`.options(...)`): the driver waits as long as the server may run it. */
export const LONG_STATEMENT_OPTIONS = { query_timeout: LONG_STATEMENT_TIMEOUT_MS + QUERY_TIMEOUT_SLACK_MS } as const;

/** knex's client, as far as running a statement on one of its pooled connections needs. */
export interface PoolClient {
  acquireConnection(): Promise<pg.Client>;
  releaseConnection(connection: pg.Client): Promise<unknown>;
  emit(event: 'query', query: object): boolean;
}

/**
 * `query`'s rows, the statement given LONG_STATEMENT_TIMEOUT_MS to run. The `set local` that gives
 * it and the statement go as one simple query, whose implicit transaction ends with it: one round
 * trip, where a knex transaction (BEGIN, SET, the statement, COMMIT) cost a search more of the
 * server's CPU than the search itself (docs/performance.md). A simple query takes no parameters,
 * so each value is written into the text as a literal, escaped by the driver (`literalOf`). In a
 * transaction, the statement runs there with the transaction's own timeout.
 */
export async function longStatementRows<Row>(db: Db, query: Knex.QueryBuilder | Knex.Raw, types?: pg.CustomTypesConfig): Promise<Row[]> {
  query.options({ ...LONG_STATEMENT_OPTIONS, ...(types && { types }) });
  if (db.isTransaction) {
    const result: unknown = await query;
    return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
  }
  const { sql, bindings } = query.toSQL().toNative();
  const text = `set local statement_timeout = ${LONG_STATEMENT_TIMEOUT_MS}; ${withLiterals(sql, bindings)}`;
  const client = db.client as unknown as PoolClient;
  const connection = await client.acquireConnection();
  try {
    client.emit('query', { method: 'raw', sql: text, bindings: [] });
    // The driver's callback form, as the hot reads run theirs (hot-reads.ts, `runOn`): with its
    // promise form a rare search's p95 read 1.15x the 2026-11-28 build's, with this 0.96x
    // (bench:compare; docs/performance.md).
    const results = await new Promise<pg.QueryResult[]>((resolve, reject) => {
      connection.query({ text, ...(types && { types }), ...LONG_STATEMENT_OPTIONS }, (err: Error | null, result: unknown) => (err ? reject(err) : resolve(result as pg.QueryResult[])));
    });
    return results[1]!.rows as Row[];
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * `sql` (the driver's `$n` form) with each placeholder replaced by its value as a literal: for a
 * simple query, which takes no parameters (a long statement here, an export's COPY).
 */
export function withLiterals(sql: string, bindings: readonly unknown[]): string {
  let seen = 0;
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    seen++;
    return literalOf(bindings[Number(n) - 1]);
  });
  if (seen !== bindings.length) throw new Error("a statement's placeholders and its bindings disagree");
  return text;
}

function literalOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date && !Number.isNaN(value.getTime())) return pg.escapeLiteral(value.toISOString());
  throw new Error(`no literal for a value of type ${typeof value}`);
}

export interface DbOptions {
  url: string;
  poolMax: number;
  /** How long a request waits for a pooled connection (and a new connection for its handshake) before failing with 503. */
  acquireTimeoutMs?: number;
  /** The server cancels a statement running longer (0 or absent: never). Bulk loads and migrations go without. */
  statementTimeoutMs?: number;
  /** Shown in pg_stat_activity, so operators (and tests) can tell this pool's sessions apart. */
  applicationName?: string;
  /** Where knex's warnings go (a dropped dead connection, say); knex prints them to the console otherwise. */
  onWarning?: (message: string) => void;
  /** Hot queries run as named prepared statements (prepared-statements.ts, `namedStatementsOn`): DB_NAMED_STATEMENTS. */
  namedStatements?: boolean;
  /**
   * The pool's callers time their own reads (`readTimeoutFor`) instead of pg's `query_timeout`: for
   * the hot reads' own pool (hot-reads.ts says why).
   */
  readsTimedByCaller?: boolean;
}

/**
 * Marks a pool made with `namedStatements`, on its client's config: knex hands that object on to
 * every transaction's client, so a query inside a transaction (a write's outbox insert, say) is
 * prepared too.
 */
const NAMED_STATEMENTS = Symbol('namedStatements');

type MarkedConfig = Knex.Config & { [NAMED_STATEMENTS]?: true };

/**
 * Whether `db`'s statements may be named (prepared-statements.ts): each of its pool's connections
 * has a session of its own (not so behind PgBouncer older than 1.21 in transaction mode, where
 * DB_NAMED_STATEMENTS=false).
 */
export function namedStatementsOn(db: Db): boolean {
  return (db.client.config as MarkedConfig)[NAMED_STATEMENTS] === true;
}

/**
 * How long the driver waits for an answer (pg's query_timeout), or a caller of a pool that leaves
 * that to its callers: the statement timeout and QUERY_TIMEOUT_SLACK_MS; none without one.
 */
export function readTimeoutFor(statementTimeoutMs: number | undefined): number | undefined {
  return statementTimeoutMs ? statementTimeoutMs + QUERY_TIMEOUT_SLACK_MS : undefined;
}

/**
 * A knex pool that fails fast while PostgreSQL is unreachable and heals by itself once it is back:
 * a refused or hung connection attempt fails within the acquire timeout; a connection whose socket
 * died (restart, pg_terminate_backend) is marked by knex and dropped at its next acquire; one still
 * waiting for an answer it gave up on (query timeout on a dead socket) is dropped too, see `isIdle`.
 */
export function createDb(options: DbOptions): Db {
  const { url, poolMax, acquireTimeoutMs = DEFAULT_ACQUIRE_TIMEOUT_MS, statementTimeoutMs, applicationName, onWarning } = options;
  const readTimeoutMs = readTimeoutFor(statementTimeoutMs);
  const driverReadTimeout = readTimeoutMs && !options.readsTimedByCaller ? { query_timeout: readTimeoutMs } : {};
  const statementTimeout = statementTimeoutMs ? { statement_timeout: statementTimeoutMs, ...driverReadTimeout } : {};
  const db = knex({
    client: 'pg',
    connection: {
      connectionString: url,
      connectionTimeoutMillis: acquireTimeoutMs,
      keepAlive: true,
      ...statementTimeout,
      ...(applicationName ? { application_name: applicationName } : {}),
    },
    pool: { min: 0, max: poolMax, validate: isIdle },
    acquireConnectionTimeout: acquireTimeoutMs,
    // The first line says what happened; knex appends the driver's stack, which says nothing more.
    ...(onWarning ? { log: { warn: (message: unknown) => onWarning(String(message).split('\n')[0]!) } } : {}),
  });
  if (options.namedStatements) (db.client.config as MarkedConfig)[NAMED_STATEMENTS] = true;
  return db;
}

/**
 * A connection handed back to the pool must be idle, outside any transaction. One that is not gave
 * up on an answer that never came (its query timed out on a dead socket): every later query on it
 * would queue behind that answer forever. And one whose late answer did come (a hung node that
 * resumed) may sit in the transaction the driver abandoned, its ROLLBACK never sent: the next
 * caller's COMMIT would commit a write answered 503. The pool destroys either (PostgreSQL rolls the
 * transaction back) and makes a new one.
 */
function isIdle(connection: pg.Client): boolean {
  return (connection as pg.Client & { readyForQuery?: boolean }).readyForQuery === true && connection.getTransactionStatus() === 'I';
}
