import { createDb, longStatementRows, LONG_STATEMENT_TIMEOUT_MS } from '../../src/db/knex';
import { testDatabaseUrl } from '../helpers/test-app';

// longStatementRows (src/db/knex.ts): a statement that may run long (a search) gets
// LONG_STATEMENT_TIMEOUT_MS, for itself alone, in one round trip.

describe('longStatementRows', () => {
  // One connection with a short statement timeout, as the service's pool has one.
  const db = createDb({ url: testDatabaseUrl(), poolMax: 1, statementTimeoutMs: 200, onWarning: () => undefined });
  afterAll(() => db.destroy());

  it('runs the statement past the pool\'s statement timeout, which a plain statement cannot', async () => {
    await expect(db.raw('select pg_sleep(0.4)')).rejects.toThrow(/statement timeout/);
    const rows = await longStatementRows<{ slept: string }>(db, db.raw("select pg_sleep(0.4)::text || 'done' as slept"));
    expect(rows).toEqual([{ slept: 'done' }]);
  });

  it('gives the longer timeout to its own statement only: the connection keeps the pool\'s', async () => {
    const [row] = await longStatementRows<{ t: string }>(db, db.raw("select current_setting('statement_timeout') as t"));
    expect(row!.t).toBe(`${LONG_STATEMENT_TIMEOUT_MS / 1000}s`);
    expect((await db.raw('show statement_timeout')).rows).toEqual([{ statement_timeout: '200ms' }]);
  });

  it('binds every kind of value a list statement takes, as the value it is', async () => {
    const when = new Date('2030-01-15T09:30:00.123Z');
    const values = ["o'brien \\' $1 ?", 42, true, null, when];
    const [row] = await longStatementRows<Record<string, unknown>>(db, db.raw(
      'select ?::text as s, ?::int as n, ?::boolean as b, ?::text as z, ?::timestamptz as d', values,
    ));
    expect(row).toEqual({ s: values[0], n: 42, b: true, z: null, d: when });
  });

  it('leaves the connection usable after its statement fails', async () => {
    await expect(longStatementRows(db, db.raw('select 1/0'))).rejects.toThrow(/division by zero/);
    expect((await db.raw('select 1 as one')).rows).toEqual([{ one: 1 }]);
    expect((await db.raw('show statement_timeout')).rows).toEqual([{ statement_timeout: '200ms' }]);
  });
});
