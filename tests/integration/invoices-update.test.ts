import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { LONG_AGO, createClient, createInvoice, invoiceSnapshot } from '../helpers/invoices-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function update(key: string, input: unknown) {
  return rpcPost(ctx.app, 'invoices.update', input, key);
}

describe('POST invoices.update (fields)', () => {
  it('changes only the given fields of a DRAFT: items stay, updatedAt advances', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const client = await createClient(ctx.db, ws.org.id);
    const res = await update(ws.key, { id: invoice.id, clientId: client.id, currency: 'EUR', dueDate: new Date('2032-07-04T00:00:00.000Z') });
    expect(res.status).toBe(200);
    const answered = resultOf(res);
    expect(answered).toEqual({
      ...invoice, clientId: client.id, currency: 'EUR', dueDate: new Date('2032-07-04T00:00:00.000Z'), updatedAt: expect.any(Date),
    });
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const { invoice: row, items } = await invoiceSnapshot(ctx.db, ws.org.id, invoice.id);
    expect(row).toMatchObject({ client_id: client.id, currency: 'EUR', due_date: '2032-07-04', status: 'DRAFT' });
    expect(row.updated_at).toEqual(answered.updatedAt);
    expect(items.map((i) => i.id)).toEqual(invoice.items.map((i) => i.id));
  });

  it('replaces every item when items are given, and recomputes the totals', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const items = [{ description: 'Only line', quantity: 4, unitPrice: 2501 }];
    const answered = resultOf(await update(ws.key, { id: invoice.id, items }));
    expect(answered.items).toEqual([{ id: expect.stringMatching(/^line_/), description: 'Only line', quantity: 4, unitPrice: 2501, total: 10004 }]);
    expect(answered.total).toBe(10004);
    const stored = (await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).items;
    expect(stored.map((i) => [i.id, i.position, i.description, i.quantity, i.unit_price])).toEqual([[answered.items[0].id, 0, 'Only line', 4, '2501']]);
  });

  it('applies the change when expectedUpdatedAt matches the stored updatedAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const res = await update(ws.key, { id: invoice.id, currency: 'USD', expectedUpdatedAt: invoice.updatedAt });
    expect(resultOf(res).currency).toBe('USD');
  });

  it('answers 409 and changes nothing when the invoice changed since expectedUpdatedAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const before = await invoiceSnapshot(ctx.db, ws.org.id, invoice.id);
    const stale = new Date(LONG_AGO.getTime() - 1000);
    const res = await update(ws.key, { id: invoice.id, currency: 'USD', items: [{ description: 'x', quantity: 1, unitPrice: 1 }], expectedUpdatedAt: stale });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'invoices.update');
    expect(message).toMatch(/invoice was changed at 2020-01-01T00:00:00.000Z/);
    expect(await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).toEqual(before);
  });

  it.each([
    ['a lowercase currency', { currency: 'eur' }, ['currency']],
    ['currency set to null', { currency: null }, ['currency']],
    ['clientId set to null', { clientId: null }, ['clientId']],
    ['an empty items list', { items: [] }, ['items']],
    ['a float unitPrice', { items: [{ description: 'x', quantity: 1, unitPrice: 0.1 }] }, ['items', 0, 'unitPrice']],
    ['a bad dueDate', { dueDate: 'tomorrow' }, ['dueDate']],
    ['a status', { status: 'PAID' }, ['status']],
    ['a bad expectedUpdatedAt', { expectedUpdatedAt: 'yesterday' }, ['expectedUpdatedAt']],
  ])('answers 400 naming the field for %s, changing nothing', async (_label, patch, path) => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const before = await invoiceSnapshot(ctx.db, ws.org.id, invoice.id);
    const res = await update(ws.key, { id: invoice.id, ...patch });
    expectRpcFailure(res, 'BAD_REQUEST', 'invoices.update');
    expect(issuePaths(res)).toEqual([path]);
    expect(await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).toEqual(before);
  });

  it('answers 403 naming invoices.update when the key lacks it, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['invoices.read', 'invoices.create', 'invoices.delete'] });
    const before = await invoiceSnapshot(ctx.db, ws.org.id, invoice.id);
    const res = await update(key, { id: invoice.id, currency: 'USD' });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'invoices.update').message).toBe('missing scope: invoices.update');
    expect(await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).toEqual(before);
  });
});

describe('POST invoices.update (states)', () => {
  it.each(['SENT', 'PAID', 'VOID'] as const)('answers 409 naming DRAFT and the state of a %s invoice, changing nothing', async (status) => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { status });
    const before = await invoiceSnapshot(ctx.db, ws.org.id, invoice.id);
    const res = await update(ws.key, { id: invoice.id, currency: 'USD', items: [{ description: 'x', quantity: 1, unitPrice: 1 }] });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'invoices.update');
    expect(message).toBe(`Cannot update an invoice that is ${status}; only a DRAFT invoice can be changed`);
    expect(await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).toEqual(before);
  });
});

describe('POST invoices.update (other workspaces)', () => {
  it("answers 404 for another workspace's invoice and leaves it unchanged", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, theirs.org.id);
    const before = await invoiceSnapshot(ctx.db, theirs.org.id, invoice.id);
    const res = await update(ws.key, { id: invoice.id, currency: 'USD', items: [{ description: 'x', quantity: 1, unitPrice: 1 }] });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'invoices.update').message).toBe(`No invoice ${JSON.stringify(invoice.id)} in this workspace`);
    expect(await invoiceSnapshot(ctx.db, theirs.org.id, invoice.id)).toEqual(before);
  });

  it("answers 404 for another workspace's clientId and changes nothing", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const theirClient = await createClient(ctx.db, theirs.org.id);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const before = await invoiceSnapshot(ctx.db, ws.org.id, invoice.id);
    const res = await update(ws.key, { id: invoice.id, clientId: theirClient.id, currency: 'USD' });
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'invoices.update');
    expect(message).toBe(`clientId: no client ${JSON.stringify(theirClient.id)} in this workspace`);
    expect(await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).toEqual(before);
    expect(Number((await ctx.db('invoices').where({ org_id: theirs.org.id, client_id: theirClient.id }).count({ n: '*' }).first())?.n)).toBe(0);
  });
});
