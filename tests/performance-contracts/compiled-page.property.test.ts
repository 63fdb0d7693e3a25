import fc from 'fast-check';
import knex from 'knex';
import { compiledPageStatement } from '../../src/db/leads/compiled-page';
import { CallValues, compiledPerShape, type BoundStatement } from '../../src/db/hot-reads';
import { pageStatement, type ListPosition, type PageArgs } from '../../src/db/leads/page-statement';
import { LEAD_STATUSES } from '../../src/domain/lead-status';

/**
 * The leads list's first and keyset pages are compiled once per shape and bound with each call's
 * values (src/db/leads/compiled-page.ts). For any arguments, the bound statement must be exactly
 * the one knex builds anew: the same SQL text and the same bindings. A filter dropped or a shaping
 * value bound as a value ('unassigned' is IS NULL) would differ. No database is needed to compile.
 */
const db = knex({ client: 'pg' });
afterAll(() => db.destroy());

const native = (query: { toSQL(): { toNative(): { sql: string; bindings: readonly unknown[] } } }) => query.toSQL().toNative();
const bound = ({ sql, bindings }: BoundStatement) => ({ sql, bindings });

// Ids and values that look like what shapes the text, or like the stand-ins themselves.
const text = fc.oneof(fc.string({ minLength: 1 }), fc.constantFrom('unassigned', '?', '??', "o'brien", '$1', 'value 0', 'null'));
const pageSize = fc.integer({ min: 1, max: 100 });
const position: fc.Arbitrary<ListPosition> = fc.oneof(
  pageSize.map((size) => ({ page: 1, pageSize: size })),
  fc.record({
    pageSize,
    after: fc.record({ nextCallAt: fc.option(fc.date({ noInvalidDate: true }), { nil: null }), createdAt: fc.date({ noInvalidDate: true }), id: text }),
  }),
);
const pageArgs: fc.Arbitrary<PageArgs> = fc.record({
  orgId: text,
  filters: fc.record(
    { status: fc.constantFrom(...LEAD_STATUSES), assignedToId: fc.oneof(fc.constant('unassigned'), text) },
    { requiredKeys: [] },
  ),
  position,
  as: fc.constantFrom('columns' as const, 'json' as const),
  withTotal: fc.boolean(),
});

describe('statements compiled once per shape', () => {
  it("bind a leads page exactly as knex builds it, whatever the page's arguments", () => {
    fc.assert(
      fc.property(pageArgs, (args) => {
        expect(bound(compiledPageStatement(db, args))).toEqual(native(pageStatement(db, args)));
      }),
      { numRuns: 500 },
    );
  });

  it('reuse one compiled text for calls of the same shape, with each call its own values', () => {
    const first = bound(compiledPageStatement(db, { orgId: 'org_a', filters: { status: 'QUALIFIED' }, position: { page: 1, pageSize: 5 }, as: 'json', withTotal: true }));
    const second = bound(compiledPageStatement(db, { orgId: 'org_b', filters: { status: 'LOST' }, position: { page: 1, pageSize: 5 }, as: 'json', withTotal: true }));
    expect(second.sql).toBe(first.sql);
    expect(first.bindings).toEqual(expect.arrayContaining(['org_a', 'QUALIFIED']));
    expect(second.bindings).toEqual(expect.arrayContaining(['org_b', 'LOST']));
    expect(second.bindings).not.toContain('org_a');
  });

  it('refuse a search page, which is planned and built on every call', () => {
    const search = { text: 'pat', phoneDigits: [] };
    expect(() => compiledPageStatement(db, { orgId: 'o', filters: { search }, position: { page: 1, pageSize: 5 }, as: 'json', withTotal: false }))
      .toThrow(/search/);
  });

  it('refuse a builder that writes a value into the text, or leaves one out', () => {
    const inlined = compiledPerShape((d, { id }: { id: string }) => d.raw(`select '${id}'`));
    const values = new CallValues();
    expect(() => inlined(db, { id: values.of('x') }, values)).toThrow(/written into the statement text/);
    const ignored = compiledPerShape((d, _args: { id: string }) => d.raw('select 1'));
    const more = new CallValues();
    expect(() => ignored(db, { id: more.of('x') }, more)).toThrow(/binds 0 of its 1/);
  });
});
