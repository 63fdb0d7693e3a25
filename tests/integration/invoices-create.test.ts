import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { INVOICE_FIELDS, countInvoiceRows, createClient } from '../helpers/invoices-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

const ITEMS = [
  { description: 'Consulting', quantity: 3, unitPrice: 1999 },
  { description: 'Stamp', quantity: 1, unitPrice: 1 },
];

function create(key: string, input: unknown) {
  return rpcPost(ctx.app, 'invoices.create', input, key);
}

async function workspaceWithClient() {
  const ws = await createWorkspace(ctx.db);
  const client = await createClient(ctx.db, ws.org.id);
  return { ...ws, client };
}

describe('POST invoices.create', () => {
  it('creates a DRAFT invoice with its items and the exact totals (3 x 1999 + 1 x 1 = 5998), and stores them', async () => {
    const ws = await workspaceWithClient();
    const res = await create(ws.key, { clientId: ws.client.id, currency: 'GBP', dueDate: new Date('2030-02-28T00:00:00.000Z'), items: ITEMS });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...INVOICE_FIELDS]);
    const invoice = resultOf(res);
    expect(invoice).toEqual({
      id: expect.stringMatching(/^inv_/), clientId: ws.client.id, currency: 'GBP', status: 'DRAFT',
      dueDate: new Date('2030-02-28T00:00:00.000Z'), sentAt: null, paidAt: null, voidedAt: null,
      items: [
        { id: expect.stringMatching(/^line_/), description: 'Consulting', quantity: 3, unitPrice: 1999, total: 5997 },
        { id: expect.stringMatching(/^line_/), description: 'Stamp', quantity: 1, unitPrice: 1, total: 1 },
      ],
      total: 5998, createdAt: expect.any(Date), updatedAt: expect.any(Date),
    });
    const row = await ctx.db('invoices').where({ org_id: ws.org.id, id: invoice.id }).first();
    expect(row).toMatchObject({ client_id: ws.client.id, currency: 'GBP', status: 'DRAFT', due_date: '2030-02-28', sent_at: null });
    const items = await ctx.db('invoice_line_items').where({ org_id: ws.org.id, invoice_id: invoice.id }).orderBy('position');
    expect(items.map((i) => [i.id, i.position, i.description, i.quantity, i.unit_price])).toEqual([
      [invoice.items[0].id, 0, 'Consulting', 3, '1999'],
      [invoice.items[1].id, 1, 'Stamp', 1, '1'],
    ]);
  });

  it('round-trips dueDate as a Date at UTC midnight, keeping the UTC day of a Date sent with a time', async () => {
    const ws = await workspaceWithClient();
    const res = await create(ws.key, { clientId: ws.client.id, currency: 'EUR', dueDate: new Date('2030-12-31T23:59:59.999Z'), items: ITEMS });
    const invoice = resultOf(res);
    expect(invoice.dueDate).toBeInstanceOf(Date);
    expect(invoice.dueDate.toISOString()).toBe('2030-12-31T00:00:00.000Z');
    expect((await ctx.db('invoices').where({ org_id: ws.org.id, id: invoice.id }).first()).due_date).toBe('2030-12-31');
  });

  it.each([
    ['an ISO date', '2031-03-15', '2031-03-15'],
    ['a date-time with a zone, read as its UTC day', '2031-03-15T01:30:00+02:00', '2031-03-14'],
  ])('accepts dueDate as %s from a plain-JSON caller', async (_label, dueDate, day) => {
    const ws = await workspaceWithClient();
    const invoice = resultOf(await create(ws.key, { clientId: ws.client.id, currency: 'USD', dueDate, items: ITEMS }));
    expect(invoice.dueDate).toEqual(new Date(`${day}T00:00:00.000Z`));
  });

  it('keeps the largest amounts the bounds allow exact: 100 lines of 10,000 x 1,000,000,000', async () => {
    const ws = await workspaceWithClient();
    const items = Array.from({ length: 100 }, (_, i) => ({ description: `Line ${i}`, quantity: 10_000, unitPrice: 1_000_000_000 }));
    const res = await create(ws.key, { clientId: ws.client.id, currency: 'JPY', dueDate: '2030-01-01', items });
    expect(res.status).toBe(200);
    const json = res.body.result.data.json;
    expect(json.total).toBe(1_000_000_000_000_000);
    expect(json.items.map((i: { description: string }) => i.description)).toEqual(items.map((i) => i.description));
  });

  it("answers 404 for another workspace's clientId and writes nothing in either workspace", async () => {
    const ws = await workspaceWithClient();
    const theirs = await workspaceWithClient();
    const res = await create(ws.key, { clientId: theirs.client.id, currency: 'GBP', dueDate: '2030-01-01', items: ITEMS });
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'invoices.create');
    expect(message).toBe(`clientId: no client ${JSON.stringify(theirs.client.id)} in this workspace`);
    expect(await countInvoiceRows(ctx.db, ws.org.id)).toEqual({ invoices: 0, items: 0 });
    expect(await countInvoiceRows(ctx.db, theirs.org.id)).toEqual({ invoices: 0, items: 0 });
  });

  it.each([
    ['a lowercase currency', { currency: 'gbp' }, ['currency'], /currency: expected the currency code in capitals: "GBP", not "gbp"/],
    ['an unknown currency', { currency: 'ABC' }, ['currency'], /ISO 4217/],
    ['a two-letter currency', { currency: 'GB' }, ['currency'], /ISO 4217/],
    ['a fractional unitPrice', { items: [{ description: 'x', quantity: 1, unitPrice: 19.99 }] }, ['items', 0, 'unitPrice'], /minor units/],
    ['a unitPrice as a string', { items: [{ description: 'x', quantity: 1, unitPrice: '1999' }] }, ['items', 0, 'unitPrice'], /number/],
    ['a negative unitPrice', { items: [{ description: 'x', quantity: 1, unitPrice: -1 }] }, ['items', 0, 'unitPrice'], /from 0 to 1000000000 .*, got the number -1/],
    ['a unitPrice over 1,000,000,000', { items: [{ description: 'x', quantity: 1, unitPrice: 1_000_000_001 }] }, ['items', 0, 'unitPrice'], /1000000000/],
    ['quantity 0', { items: [{ description: 'x', quantity: 0, unitPrice: 1 }] }, ['items', 0, 'quantity'], /from 1 to 10000, got the number 0/],
    ['a fractional quantity', { items: [{ description: 'x', quantity: 1.5, unitPrice: 1 }] }, ['items', 0, 'quantity'], /whole number/],
    ['quantity over 10,000', { items: [{ description: 'x', quantity: 10_001, unitPrice: 1 }] }, ['items', 0, 'quantity'], /10000/],
    ['a blank description', { items: [{ description: '   ', quantity: 1, unitPrice: 1 }] }, ['items', 0, 'description'], /empty/],
    ['a description over 500 characters', { items: [{ description: 'x'.repeat(501), quantity: 1, unitPrice: 1 }] }, ['items', 0, 'description'], /500/],
    ['an unknown item field', { items: [{ description: 'x', quantity: 1, unitPrice: 1, total: 1 }] }, ['items', 0, 'total'], /unknown field/],
    ['no items', { items: [] }, ['items'], /1/],
    ['101 items', { items: Array.from({ length: 101 }, () => ITEMS[0]) }, ['items'], /100/],
    ['a date-time without a zone', { dueDate: '2030-01-01T00:00:00' }, ['dueDate'], /time zone/],
    ['an impossible date', { dueDate: '2030-02-30' }, ['dueDate'], /ISO 8601/],
    ['a dueDate before 1900', { dueDate: '1899-12-31' }, ['dueDate'], /1900-01-01/],
    ['an invalid Date', { dueDate: new Date('nope') }, ['dueDate'], /ISO 8601/],
    ['a missing clientId', { clientId: undefined }, ['clientId'], /clientId/],
    ['a status', { status: 'SENT' }, ['status'], /unknown field/],
  ])('answers 400 naming the field for %s, writing nothing', async (_label, patch, path, message) => {
    const ws = await workspaceWithClient();
    const input = { clientId: ws.client.id, currency: 'GBP', dueDate: '2030-01-01', items: ITEMS, ...patch };
    const res = await create(ws.key, input);
    const failure = expectRpcFailure(res, 'BAD_REQUEST', 'invoices.create');
    expect(issuePaths(res)).toEqual([path]);
    expect(failure.message).toMatch(message);
    expect(await countInvoiceRows(ctx.db, ws.org.id)).toEqual({ invoices: 0, items: 0 });
  });

  it('answers 403 naming invoices.create when the key lacks it, writing nothing', async () => {
    const ws = await workspaceWithClient();
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['invoices.read', 'invoices.update'] });
    const res = await create(key, { clientId: ws.client.id, currency: 'GBP', dueDate: '2030-01-01', items: ITEMS });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'invoices.create').message).toBe('missing scope: invoices.create');
    expect(await countInvoiceRows(ctx.db, ws.org.id)).toEqual({ invoices: 0, items: 0 });
  });
});
