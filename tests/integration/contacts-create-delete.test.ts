import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createWorkspace, unique } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { CONTACT_FIELDS, countRows, createClient, createContact, storedClient, storedContact } from '../helpers/contacts-clients-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function create(key: string, input: unknown) {
  return rpcPost(ctx.app, 'contacts.create', input, key);
}

describe('POST contacts.create', () => {
  it('stores the contact with E.164 phones (in the workspace region) and lowercased, de-duplicated emails', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, {
      name: '  Ana Lima  ', phones: ['020 7946 0018', '+44 20 7946 0018', '+1 (201) 555-0123'],
      emails: [' Ana@Example.COM', 'ana@example.com', 'two@example.com'], company: 'Acme',
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...CONTACT_FIELDS]);
    const contact = resultOf(res);
    expect(contact).toEqual({
      id: expect.stringMatching(/^con_[0-9A-Za-z]{22}$/), name: 'Ana Lima', phones: ['+442079460018', '+12015550123'],
      emails: ['ana@example.com', 'two@example.com'], primaryPhone: '+442079460018', primaryEmail: 'ana@example.com', company: 'Acme',
      createdAt: expect.any(Date), updatedAt: expect.any(Date), externalId: null,
    });
    const row = await storedContact(ctx.db, ws.org.id, contact.id);
    expect(row).toMatchObject({ name: 'Ana Lima', phones: ['+442079460018', '+12015550123'], emails: ['ana@example.com', 'two@example.com'], company: 'Acme' });
    expect(row.created_at).toEqual(contact.createdAt);
  });

  it('reads national numbers in the workspace region (US here)', async () => {
    const ws = await createWorkspace(ctx.db, { region: 'US' });
    const res = await create(ws.key, { name: 'Bruno', phones: ['(201) 555-0123'] });
    expect(resultOf(res).phones).toEqual(['+12015550123']);
  });

  it('accepts only a name: empty lists, null primaries and company', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, { name: 'Just a name' });
    expect(res.status).toBe(200);
    const json = res.body.result.data.json;
    expect([json.phones, json.emails, json.primaryPhone, json.primaryEmail, json.company]).toEqual([[], [], null, null, null]);
    expect(await storedContact(ctx.db, ws.org.id, json.id)).toMatchObject({ phones: [], emails: [], company: null });
  });

  it.each([
    ['no name', {}, [['name']]],
    ['a blank name', { name: '   ' }, [['name']]],
    ['a name over 200 characters', { name: 'x'.repeat(201) }, [['name']]],
    ['phones that are not a list', { name: 'A', phones: '+442079460018' }, [['phones']]],
    ['a bad email', { name: 'A', emails: ['ok@example.com', 'nope'] }, [['emails', 1]]],
    ['a NUL character in company', { name: 'A', company: 'a\u0000b' }, [['company']]],
    ['an unknown key', { name: 'A', status: 'NEW' }, [['status']]],
    ['an unreadable phone', { name: 'A', phones: ['+442079460018', 'not a phone'] }, [['phones', 1]]],
  ])('answers 400 naming the field for %s and stores nothing', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, input);
    expectRpcFailure(res, 'BAD_REQUEST', 'contacts.create');
    expect(issuePaths(res)).toEqual(paths);
    expect(await countRows(ctx.db, 'contacts', ws.org.id)).toBe(0);
  });

  it('answers 403 naming contacts.create when the key lacks it, storing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read', 'contacts.update', 'leads.create'] });
    const res = await create(key, { name: 'A' });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'contacts.create').message).toBe('missing scope: contacts.create');
    expect(await countRows(ctx.db, 'contacts', ws.org.id)).toBe(0);
  });
});

describe('POST contacts.delete', () => {
  function remove(key: string, input: unknown) {
    return rpcPost(ctx.app, 'contacts.delete', input, key);
  }

  it('deletes a contact no lead uses and answers {id, deleted: true}', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id);
    const other = await createContact(ctx.db, ws.org.id);
    const res = await remove(ws.key, { id: contact.id });
    expect(res.status).toBe(200);
    expect(res.body.result.data.json).toEqual({ id: contact.id, deleted: true });
    expect(await storedContact(ctx.db, ws.org.id, contact.id)).toBeUndefined();
    expect(await storedContact(ctx.db, ws.org.id, other.id)).toBeDefined();
  });

  it('keeps a client linked to the deleted contact, with its own fields, unlinked', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id);
    const client = await createClient(ctx.db, ws.org.id, { contactId: contact.id, email: 'billing@example.com' });
    expect((await remove(ws.key, { id: contact.id })).status).toBe(200);
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toMatchObject({ contact_id: null, name: client.name, email: 'billing@example.com' });
  });

  it('answers 409 naming the lead while a lead uses the contact, deleting nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const before = await storedContact(ctx.db, ws.org.id, lead.contactId);
    const res = await remove(ws.key, { id: lead.contactId });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'contacts.delete');
    expect(message).toBe(`Contact ${JSON.stringify(lead.contactId)} is used by a lead: delete the lead first`);
    expect(await storedContact(ctx.db, ws.org.id, lead.contactId)).toEqual(before);
  });

  it('deletes the contact once its lead is deleted', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    expect((await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key)).status).toBe(200);
    expect((await remove(ws.key, { id: lead.contactId })).status).toBe(200);
    expect(await storedContact(ctx.db, ws.org.id, lead.contactId)).toBeUndefined();
  });

  it("answers 404 for another workspace's contact id and leaves it in place", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, theirs.org.id, { name: unique('Theirs') });
    const res = await remove(ws.key, { id: contact.id });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'contacts.delete').message).toBe(`No contact ${JSON.stringify(contact.id)} in this workspace`);
    expect(await storedContact(ctx.db, theirs.org.id, contact.id)).toBeDefined();
  });

  it("answers 404 rather than 409 for another workspace's contact that a lead uses", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, theirs.org.id);
    expectRpcFailure(await remove(ws.key, { id: lead.contactId }), 'NOT_FOUND', 'contacts.delete');
  });

  it.each([
    ['no id', {}, [['id']]],
    ['an unknown key', { id: 'con_x', force: true }, [['force']]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await remove(ws.key, input);
    expectRpcFailure(res, 'BAD_REQUEST', 'contacts.delete');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming contacts.delete when the key lacks it, deleting nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read', 'contacts.update', 'leads.delete'] });
    const res = await remove(key, { id: contact.id });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'contacts.delete').message).toBe('missing scope: contacts.delete');
    expect(await storedContact(ctx.db, ws.org.id, contact.id)).toBeDefined();
  });
});
