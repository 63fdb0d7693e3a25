import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { LONG_AGO, createInvoice, invoiceSnapshot } from '../helpers/invoices-fixtures';
import type { InvoiceStatus } from '../../src/domain/invoice-status';

const ctx = createTestContext();
afterAll(() => ctx.close());

/** The three status changes, with the state each starts from and the answer it gives. */
const CHANGES = [
  { name: 'invoices.send', from: 'DRAFT', to: 'SENT', stamp: 'sentAt', column: 'sent_at' },
  { name: 'invoices.markPaid', from: 'SENT', to: 'PAID', stamp: 'paidAt', column: 'paid_at' },
  { name: 'invoices.void', from: 'SENT', to: 'VOID', stamp: 'voidedAt', column: 'voided_at' },
] as const;

/** Each refused (procedure, state) pair and the exact 409 message. */
const REFUSED: [string, InvoiceStatus, string][] = [
  ['invoices.send', 'SENT', 'Cannot move an invoice from SENT to SENT: it is already SENT; only a DRAFT invoice can be sent'],
  ['invoices.send', 'PAID', 'Cannot move an invoice from PAID to SENT; only a DRAFT invoice can be sent'],
  ['invoices.send', 'VOID', 'Cannot move an invoice from VOID to SENT; only a DRAFT invoice can be sent'],
  ['invoices.markPaid', 'DRAFT', 'Cannot move an invoice from DRAFT to PAID; only a SENT invoice can be marked paid'],
  ['invoices.markPaid', 'PAID', 'Cannot move an invoice from PAID to PAID: it is already PAID; only a SENT invoice can be marked paid'],
  ['invoices.markPaid', 'VOID', 'Cannot move an invoice from VOID to PAID; only a SENT invoice can be marked paid'],
  ['invoices.void', 'PAID', 'Cannot move an invoice from PAID to VOID; only a DRAFT or SENT invoice can be voided'],
  ['invoices.void', 'VOID', 'Cannot move an invoice from VOID to VOID: it is already VOID; only a DRAFT or SENT invoice can be voided'],
  ['invoices.delete', 'SENT', 'Cannot delete an invoice that is SENT; only a DRAFT invoice can be deleted'],
  ['invoices.delete', 'PAID', 'Cannot delete an invoice that is PAID; only a DRAFT invoice can be deleted'],
  ['invoices.delete', 'VOID', 'Cannot delete an invoice that is VOID; only a DRAFT invoice can be deleted'],
];

const PROCEDURES = ['invoices.send', 'invoices.markPaid', 'invoices.void', 'invoices.delete'] as const;
const SCOPE_OF = { 'invoices.send': 'invoices.update', 'invoices.markPaid': 'invoices.update', 'invoices.void': 'invoices.update', 'invoices.delete': 'invoices.delete' };

describe.each(CHANGES)('POST $name', ({ name, from, to, stamp, column }) => {
  it(`moves a ${from} invoice to ${to}, stamping ${stamp} with the time of the call`, async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { status: from });
    const before = Date.now();
    const res = await rpcPost(ctx.app, name, { id: invoice.id }, ws.key);
    expect(res.status).toBe(200);
    const answered = resultOf(res);
    expect(answered).toEqual({ ...invoice, status: to, [stamp]: expect.any(Date), updatedAt: expect.any(Date) });
    expect(answered[stamp].getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(answered[stamp].getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const row = (await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).invoice;
    expect(row.status).toBe(to);
    expect(row[column]).toEqual(answered[stamp]);
    expect(row.updated_at).toEqual(answered.updatedAt);
  });
});

describe('POST invoices.void', () => {
  it('voids a DRAFT invoice too, leaving sentAt null', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const answered = resultOf(await rpcPost(ctx.app, 'invoices.void', { id: invoice.id }, ws.key));
    expect(answered).toMatchObject({ status: 'VOID', sentAt: null, voidedAt: expect.any(Date), total: 5998 });
  });
});

describe('POST invoices.markPaid', () => {
  it('records the given paidAt to the millisecond', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { status: 'SENT' });
    const paidAt = new Date('2024-05-06T07:08:09.123Z');
    const answered = resultOf(await rpcPost(ctx.app, 'invoices.markPaid', { id: invoice.id, paidAt }, ws.key));
    expect(answered).toMatchObject({ status: 'PAID', paidAt });
    expect((await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).invoice.paid_at).toEqual(paidAt);
  });

  it.each([
    ['a paidAt in the future', { paidAt: new Date(Date.now() + 3_600_000) }, ['paidAt'], /paidAt: expected a date-time not in the future, got /],
    ['a paidAt without a time zone', { paidAt: '2024-01-01T00:00:00' }, ['paidAt'], /paidAt/],
    ['an unknown field', { note: 'cash' }, ['note'], /unknown field/],
  ])('answers 400 for %s, changing nothing', async (_label, patch, path, message) => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { status: 'SENT' });
    const before = await invoiceSnapshot(ctx.db, ws.org.id, invoice.id);
    const res = await rpcPost(ctx.app, 'invoices.markPaid', { id: invoice.id, ...patch }, ws.key);
    expect(expectRpcFailure(res, 'BAD_REQUEST', 'invoices.markPaid').message).toMatch(message);
    expect(issuePaths(res)).toEqual([path]);
    expect(await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).toEqual(before);
  });
});

describe('POST invoices.delete', () => {
  it('deletes a DRAFT invoice and its items, answering {id, deleted: true}', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const kept = await createInvoice(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'invoices.delete', { id: invoice.id }, ws.key);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ id: invoice.id, deleted: true });
    expect(await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).toEqual({ invoice: undefined, items: [] });
    expect((await invoiceSnapshot(ctx.db, ws.org.id, kept.id)).items).toHaveLength(2);
  });
});

describe.each(PROCEDURES)('POST %s (refusals)', (name) => {
  const refused = REFUSED.filter(([procedure]) => procedure === name).map(([, status, message]) => [status, message] as const);
  it.each(refused)('answers 409 naming both states for a %s invoice, writing nothing', async (status, message) => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { status });
    const before = await invoiceSnapshot(ctx.db, ws.org.id, invoice.id);
    const res = await rpcPost(ctx.app, name, { id: invoice.id }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', name).message).toBe(message);
    expect(await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).toEqual(before);
  });

  it("answers 404 for another workspace's invoice and leaves it unchanged", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, theirs.org.id, { status: name === 'invoices.markPaid' ? 'SENT' : 'DRAFT' });
    const before = await invoiceSnapshot(ctx.db, theirs.org.id, invoice.id);
    const res = await rpcPost(ctx.app, name, { id: invoice.id }, ws.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', name).message).toBe(`No invoice ${JSON.stringify(invoice.id)} in this workspace`);
    expect(await invoiceSnapshot(ctx.db, theirs.org.id, invoice.id)).toEqual(before);
  });

  it.each([
    ['no id', {}, ['id']],
    ['an empty id', { id: '' }, ['id']],
    ['an unknown field', { id: 'inv_x', force: true }, ['force']],
  ])('answers 400 naming the field for %s', async (_label, input, path) => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcPost(ctx.app, name, input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', name);
    expect(issuePaths(res)).toEqual([path]);
  });

  it('answers 403 naming its scope when the key lacks it, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { status: name === 'invoices.markPaid' ? 'SENT' : 'DRAFT' });
    const scope = SCOPE_OF[name];
    const others = ['invoices.read', 'invoices.create', 'invoices.update', 'invoices.delete'].filter((s) => s !== scope);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: others });
    const before = await invoiceSnapshot(ctx.db, ws.org.id, invoice.id);
    const res = await rpcPost(ctx.app, name, { id: invoice.id }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', name).message).toBe(`missing scope: ${scope}`);
    expect(await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).toEqual(before);
  });
});

describe('invoice status changes racing each other', () => {
  it('lets exactly one of markPaid and void win on a SENT invoice; the other answers 409', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { status: 'SENT' });
    const [paid, voided] = await Promise.all([
      rpcPost(ctx.app, 'invoices.markPaid', { id: invoice.id }, ws.key),
      rpcPost(ctx.app, 'invoices.void', { id: invoice.id }, ws.key),
    ]);
    expect([paid.status, voided.status].sort()).toEqual([200, 409]);
    const row = (await invoiceSnapshot(ctx.db, ws.org.id, invoice.id)).invoice;
    expect(row.status).toBe(paid.status === 200 ? 'PAID' : 'VOID');
    expect([row.paid_at === null, row.voided_at === null].sort()).toEqual([false, true]);
  });

  it('lets exactly one of two sends win', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    const answers = await Promise.all([1, 2].map(() => rpcPost(ctx.app, 'invoices.send', { id: invoice.id }, ws.key)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
  });
});
