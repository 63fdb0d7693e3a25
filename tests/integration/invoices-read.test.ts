import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcGet, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { INVOICE_FIELDS, ITEM_FIELDS, createClient, createInvoice } from '../helpers/invoices-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

describe('GET invoices.getById', () => {
  it('answers the invoice with its items in order, each line total and the exact invoice total', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { status: 'SENT', currency: 'JPY' });
    const res = await rpcGet(ctx.app, 'invoices.getById', { id: invoice.id }, ws.key);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...INVOICE_FIELDS]);
    expect(Object.keys(res.body.result.data.json.items[0]).sort()).toEqual([...ITEM_FIELDS]);
    const answered = resultOf(res);
    expect(answered).toEqual(invoice);
    expect(answered).toMatchObject({
      status: 'SENT', currency: 'JPY', total: 5998, paidAt: null, voidedAt: null, sentAt: new Date('2021-06-01T12:00:00.000Z'),
      dueDate: new Date('2030-01-31T00:00:00.000Z'),
      items: [
        { id: expect.stringMatching(/^line_/), description: 'Consulting', quantity: 3, unitPrice: 1999, total: 5997 },
        { id: expect.stringMatching(/^line_/), description: 'Stamp', quantity: 1, unitPrice: 1, total: 1 },
      ],
    });
    expect(answered.dueDate).toBeInstanceOf(Date);
  });

  it('answers money as JSON integers, never strings (bigint unit prices included)', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { items: [{ description: 'Big', quantity: 10_000, unitPrice: 1_000_000_000 }] });
    const json = (await rpcGet(ctx.app, 'invoices.getById', { id: invoice.id }, ws.key)).body.result.data.json;
    expect(json.items[0]).toMatchObject({ quantity: 10_000, unitPrice: 1_000_000_000, total: 10_000_000_000_000 });
    expect(json.total).toBe(10_000_000_000_000);
  });

  it("answers 404 for another workspace's invoice, without its data", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, theirs.org.id);
    const res = await rpcGet(ctx.app, 'invoices.getById', { id: invoice.id }, ws.key);
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'invoices.getById');
    expect(message).toBe(`No invoice ${JSON.stringify(invoice.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(invoice.clientId);
  });

  it('answers 404 for an id that names nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcFailure(await rpcGet(ctx.app, 'invoices.getById', { id: 'inv_nothing' }, ws.key), 'NOT_FOUND', 'invoices.getById');
  });

  it.each([
    ['no id', {}, ['id']],
    ['an empty id', { id: '' }, ['id']],
    ['a numeric id', { id: 7 }, ['id']],
    ['an unknown key', { id: 'inv_x', expand: true }, ['expand']],
  ])('answers 400 naming the field for %s', async (_label, input, path) => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'invoices.getById', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'invoices.getById');
    expect(issuePaths(res)).toEqual([path]);
  });

  it('answers 403 naming invoices.read when the key lacks it', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['invoices.create', 'invoices.update'] });
    const { message } = expectRpcFailure(await rpcGet(ctx.app, 'invoices.getById', { id: invoice.id }, key), 'FORBIDDEN', 'invoices.getById');
    expect(message).toBe('missing scope: invoices.read');
  });
});

describe('GET invoices.getAll', () => {
  it("answers the workspace's invoices newest first, with items and totals, in the pagination wrapper", async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    await createInvoice(ctx.db, other.org.id);
    const first = await createInvoice(ctx.db, ws.org.id);
    const second = await createInvoice(ctx.db, ws.org.id, { items: [{ description: 'One', quantity: 2, unitPrice: 250 }] });
    await ctx.db('invoices').where({ org_id: ws.org.id, id: first.id }).update({ created_at: new Date('2024-01-01T00:00:00Z') });
    await ctx.db('invoices').where({ org_id: ws.org.id, id: second.id }).update({ created_at: new Date('2024-02-01T00:00:00Z') });
    const res = await rpcGet(ctx.app, 'invoices.getAll', undefined, ws.key);
    expect(res.status).toBe(200);
    const page = resultOf(res);
    expect(page.pagination).toEqual({ page: 1, pageSize: 50, total: 2, totalPages: 1, hasNextPage: false, hasPrevPage: false });
    expect(page.data.map((i: { id: string }) => i.id)).toEqual([second.id, first.id]);
    expect(page.data[0]).toMatchObject({ total: 500, items: [{ description: 'One', quantity: 2, unitPrice: 250, total: 500 }] });
    expect(page.data[1]).toMatchObject({ total: 5998, items: [{ total: 5997 }, { total: 1 }] });
    expect(page.data[1].dueDate).toEqual(new Date('2030-01-31T00:00:00.000Z'));
  });

  it('breaks ties of createdAt by id, descending, so pages are stable', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoices = await Promise.all([1, 2, 3].map(() => createInvoice(ctx.db, ws.org.id)));
    await ctx.db('invoices').where({ org_id: ws.org.id }).update({ created_at: new Date('2024-01-01T00:00:00Z') });
    const ids = invoices.map((i) => i.id).sort().reverse();
    const pages = await Promise.all([1, 2, 3].map((p) => rpcGet(ctx.app, 'invoices.getAll', { page: p, pageSize: 1 }, ws.key)));
    expect(pages.map((r) => resultOf(r).data[0].id)).toEqual(ids);
    expect(resultOf(pages[1]!).pagination).toEqual({ page: 2, pageSize: 1, total: 3, totalPages: 3, hasNextPage: true, hasPrevPage: true });
  });

  it('filters by status and clientId before paging', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, ws.org.id);
    const sent = await createInvoice(ctx.db, ws.org.id, { clientId: client.id, status: 'SENT' });
    await createInvoice(ctx.db, ws.org.id, { clientId: client.id });
    await createInvoice(ctx.db, ws.org.id, { status: 'SENT' });
    const res = await rpcGet(ctx.app, 'invoices.getAll', { status: 'SENT', clientId: client.id, pageSize: 1 }, ws.key);
    const page = resultOf(res);
    expect(page.data.map((i: { id: string }) => i.id)).toEqual([sent.id]);
    expect(page.pagination).toMatchObject({ total: 1, totalPages: 1, hasNextPage: false });
    expect(resultOf(await rpcGet(ctx.app, 'invoices.getAll', { status: 'PAID' }, ws.key)).data).toEqual([]);
  });

  it("answers 200 with an empty page for another workspace's clientId", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, theirs.org.id);
    await createInvoice(ctx.db, theirs.org.id, { clientId: client.id });
    await createInvoice(ctx.db, ws.org.id);
    const res = await rpcGet(ctx.app, 'invoices.getAll', { clientId: client.id }, ws.key);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({
      data: [], pagination: { page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false },
    });
  });

  it('clamps pageSize above 100 to 100', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'invoices.getAll', { pageSize: 500 }, ws.key);
    expect(resultOf(res).pagination.pageSize).toBe(100);
  });

  it.each([
    ['an unknown status', { status: 'OVERDUE' }, ['status']],
    ['a lowercase status', { status: 'draft' }, ['status']],
    ['page 0', { page: 0 }, ['page']],
    ['a fractional pageSize', { pageSize: 1.5 }, ['pageSize']],
    ['an empty clientId', { clientId: '' }, ['clientId']],
    ['an unknown filter', { currency: 'GBP' }, ['currency']],
  ])('answers 400 naming the field for %s', async (_label, input, path) => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'invoices.getAll', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'invoices.getAll');
    expect(issuePaths(res)).toEqual([path]);
  });

  it('answers 403 naming invoices.read when the key lacks it', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    const { message } = expectRpcFailure(await rpcGet(ctx.app, 'invoices.getAll', {}, key), 'FORBIDDEN', 'invoices.getAll');
    expect(message).toBe('missing scope: invoices.read');
  });
});
