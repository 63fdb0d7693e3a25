import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import {
  CLIENT_FIELDS, countRows, createClient, createContact, createInvoiceRow, createLeadFor, storedClient, storedContact,
} from '../helpers/contacts-clients-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function create(key: string, input: unknown) {
  return rpcPost(ctx.app, 'clients.create', input, key);
}

describe('POST clients.create', () => {
  it('stores the client linked to a contact of the workspace, phone in E.164, email lowercased', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id);
    const res = await create(ws.key, {
      name: '  Acme Ltd ', contactId: contact.id, company: 'Acme', email: ' Billing@Acme.EXAMPLE ', phone: '020 7946 0018', notes: 'net 30',
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...CLIENT_FIELDS]);
    const client = resultOf(res);
    expect(client).toEqual({
      id: expect.stringMatching(/^cli_[0-9A-Za-z]{22}$/), name: 'Acme Ltd', contactId: contact.id, company: 'Acme',
      email: 'billing@acme.example', phone: '+442079460018', notes: 'net 30', createdAt: expect.any(Date), updatedAt: expect.any(Date), externalId: null,
    });
    const row = await storedClient(ctx.db, ws.org.id, client.id);
    expect(row).toMatchObject({
      name: 'Acme Ltd', contact_id: contact.id, company: 'Acme', email: 'billing@acme.example', phone: '+442079460018', notes: 'net 30',
    });
    expect(row.created_at).toEqual(client.createdAt);
  });

  it('reads a national phone in the workspace region (US here)', async () => {
    const ws = await createWorkspace(ctx.db, { region: 'US' });
    expect(resultOf(await create(ws.key, { name: 'Beta', phone: '(201) 555-0123' })).phone).toBe('+12015550123');
  });

  it('accepts only a name, and explicit nulls: every other field null', async () => {
    const ws = await createWorkspace(ctx.db);
    for (const input of [{ name: 'Only name' }, { name: 'Nulls', contactId: null, company: null, email: null, phone: null, notes: null }]) {
      const res = await create(ws.key, input);
      expect(res.status).toBe(200);
      const json = res.body.result.data.json;
      expect([json.contactId, json.company, json.email, json.phone, json.notes]).toEqual([null, null, null, null, null]);
    }
    expect(await countRows(ctx.db, 'clients', ws.org.id)).toBe(2);
  });

  it.each([
    ['no name', {}, [['name']]],
    ['a blank name', { name: '  ' }, [['name']]],
    ['a bad email', { name: 'A', email: 'nope' }, [['email']]],
    ['a blank phone', { name: 'A', phone: ' ' }, [['phone']]],
    ['an empty contactId', { name: 'A', contactId: '' }, [['contactId']]],
    ['notes over 10000 characters', { name: 'A', notes: 'x'.repeat(10_001) }, [['notes']]],
    ['an unknown key', { name: 'A', currency: 'GBP' }, [['currency']]],
    ['an unreadable phone', { name: 'A', phone: 'not a phone' }, [['phone']]],
  ])('answers 400 naming the field for %s and stores nothing', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, input);
    expectRpcFailure(res, 'BAD_REQUEST', 'clients.create');
    expect(issuePaths(res)).toEqual(paths);
    expect(await countRows(ctx.db, 'clients', ws.org.id)).toBe(0);
  });

  it("answers 404 naming contactId for another workspace's contact and stores nothing", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, theirs.org.id, { name: unique('Theirs') });
    const before = await storedContact(ctx.db, theirs.org.id, contact.id);
    const res = await create(ws.key, { name: 'Sneaky', contactId: contact.id });
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'clients.create');
    expect(message).toBe(`contactId: no contact ${JSON.stringify(contact.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(contact.name);
    expect(await countRows(ctx.db, 'clients', ws.org.id)).toBe(0);
    expect(await countRows(ctx.db, 'clients', theirs.org.id)).toBe(0);
    expect(await storedContact(ctx.db, theirs.org.id, contact.id)).toEqual(before);
  });

  it('answers 403 naming clients.create when the key lacks it, storing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['clients.read', 'clients.update', 'contacts.create'] });
    const res = await create(key, { name: 'A' });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'clients.create').message).toBe('missing scope: clients.create');
    expect(await countRows(ctx.db, 'clients', ws.org.id)).toBe(0);
  });
});

describe('POST clients.delete', () => {
  function remove(key: string, input: unknown) {
    return rpcPost(ctx.app, 'clients.delete', input, key);
  }

  it('deletes a client without invoices and answers {id, deleted: true}; its contact stays', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id);
    const client = await createClient(ctx.db, ws.org.id, { contactId: contact.id });
    const other = await createClient(ctx.db, ws.org.id);
    const res = await remove(ws.key, { id: client.id });
    expect(res.status).toBe(200);
    expect(res.body.result.data.json).toEqual({ id: client.id, deleted: true });
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toBeUndefined();
    expect(await storedClient(ctx.db, ws.org.id, other.id)).toBeDefined();
    expect(await storedContact(ctx.db, ws.org.id, contact.id)).toBeDefined();
  });

  it('unlinks a lead that was converted to the deleted client, keeping the lead', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id);
    const client = await createClient(ctx.db, ws.org.id, { contactId: contact.id });
    const leadId = await createLeadFor(ctx.db, ws.org.id, contact.id, client.id);
    expect((await remove(ws.key, { id: client.id })).status).toBe(200);
    expect(await ctx.db('leads').where({ org_id: ws.org.id, id: leadId }).first()).toMatchObject({ client_id: null, contact_id: contact.id });
  });

  it.each(['DRAFT', 'PAID', 'VOID'])('answers 409 while the client has an invoice (%s), deleting nothing', async (status) => {
    const ws = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, ws.org.id);
    const invoiceId = await createInvoiceRow(ctx.db, ws.org.id, client.id, status);
    const before = await storedClient(ctx.db, ws.org.id, client.id);
    const res = await remove(ws.key, { id: client.id });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'clients.delete');
    expect(message).toBe(`Client ${JSON.stringify(client.id)} has invoices: an invoiced client cannot be deleted`);
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toEqual(before);
    expect(await ctx.db('invoices').where({ org_id: ws.org.id, id: invoiceId }).first()).toBeDefined();
  });

  it("answers 404 for another workspace's client id and leaves it in place", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, theirs.org.id, { name: unique('Theirs') });
    const res = await remove(ws.key, { id: client.id });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'clients.delete').message).toBe(`No client ${JSON.stringify(client.id)} in this workspace`);
    expect(await storedClient(ctx.db, theirs.org.id, client.id)).toBeDefined();
  });

  it("answers 404 rather than 409 for another workspace's invoiced client", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, theirs.org.id);
    await createInvoiceRow(ctx.db, theirs.org.id, client.id);
    expectRpcFailure(await remove(ws.key, { id: client.id }), 'NOT_FOUND', 'clients.delete');
  });

  it.each([
    ['no id', {}, [['id']]],
    ['an unknown key', { id: 'cli_x', cascade: true }, [['cascade']]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await remove(ws.key, input);
    expectRpcFailure(res, 'BAD_REQUEST', 'clients.delete');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming clients.delete when the key lacks it, deleting nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['clients.read', 'clients.update', 'contacts.delete'] });
    const res = await remove(key, { id: client.id });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'clients.delete').message).toBe('missing scope: clients.delete');
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toBeDefined();
  });
});

describe('POST clients.delete (racing an invoice for the client)', () => {
  it('either deletes the client before the invoice fails, or refuses with 409 after it is written: never both', async () => {
    const ws = await createWorkspace(ctx.db);
    for (let round = 0; round < 5; round += 1) {
      const client = await createClient(ctx.db, ws.org.id);
      const [deleted, invoiced] = await Promise.allSettled([
        rpcPost(ctx.app, 'clients.delete', { id: client.id }, ws.key),
        createInvoiceRow(ctx.db, ws.org.id, client.id),
      ]);
      const status = deleted.status === 'fulfilled' ? deleted.value.status : 0;
      const stored = await storedClient(ctx.db, ws.org.id, client.id);
      if (invoiced.status === 'fulfilled') {
        expect(status).toBe(409);
        expect(stored).toBeDefined();
      } else {
        expect(status).toBe(200);
        expect(stored).toBeUndefined();
      }
    }
  });
});
