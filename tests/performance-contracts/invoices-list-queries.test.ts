import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcGet, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { INVOICE_FIELDS, ITEM_FIELDS, createClient, createInvoice } from '../helpers/invoices-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

// How many statements a page of invoices costs (the items of a whole page in one), counted with
// knex's query event: a performance contract, not behaviour.
describe('GET invoices.getAll statements', () => {
  it('loads the items of a whole page with one query, not one per invoice', async () => {
    const ws = await createWorkspace(ctx.db);
    await Promise.all([1, 2, 3, 4].map(() => createInvoice(ctx.db, ws.org.id)));
    const itemQueries: string[] = [];
    const listener = (q: { sql: string }) => {
      if (q.sql.includes('invoice_line_items')) itemQueries.push(q.sql);
    };
    ctx.db.on('query', listener);
    try {
      const res = await rpcGet(ctx.app, 'invoices.getAll', {}, ws.key);
      expect(resultOf(res).data.map((i: { items: unknown[] }) => i.items.length)).toEqual([2, 2, 2, 2]);
    } finally {
      ctx.db.off('query', listener);
    }
    expect(itemQueries).toHaveLength(1);
  });
});
