import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { CONTACT_FIELDS, LONG_AGO, createContact, storedContact } from '../helpers/contacts-clients-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function update(key: string, input: unknown) {
  return rpcPost(ctx.app, 'contacts.update', input, key);
}

async function fullContact(orgId: string) {
  return createContact(ctx.db, orgId, { name: unique('Full'), phones: ['+442079460018'], emails: ['full@example.com'], company: 'Acme' });
}

describe('POST contacts.update (fields)', () => {
  it('changes only the given field: the others stay, updatedAt advances and is stored', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await fullContact(ws.org.id);
    const res = await update(ws.key, { id: contact.id, company: 'Beta' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...CONTACT_FIELDS]);
    const answered = resultOf(res);
    expect(answered).toEqual({ ...contact, company: 'Beta', updatedAt: expect.any(Date) });
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const row = await storedContact(ctx.db, ws.org.id, contact.id);
    expect(row).toMatchObject({ name: contact.name, phones: ['+442079460018'], emails: ['full@example.com'], company: 'Beta' });
    expect(row.updated_at).toEqual(answered.updatedAt);
  });

  it('replaces phones and emails with normalised, de-duplicated values, renames, and clears company with null', async () => {
    const ws = await createWorkspace(ctx.db, { region: 'US' });
    const contact = await fullContact(ws.org.id);
    const res = await update(ws.key, {
      id: contact.id, name: '  Renamed ', phones: ['(201) 555-0123', '+1 201 555 0123', '+44 20 7946 0019'],
      emails: [' NEW@Example.com', 'new@example.com'], company: null,
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toMatchObject({
      name: 'Renamed', phones: ['+12015550123', '+442079460019'], primaryPhone: '+12015550123',
      emails: ['new@example.com'], primaryEmail: 'new@example.com', company: null,
    });
    expect(await storedContact(ctx.db, ws.org.id, contact.id)).toMatchObject({
      name: 'Renamed', phones: ['+12015550123', '+442079460019'], emails: ['new@example.com'], company: null,
    });
  });

  it('empties phones and emails with [] (primaries become null)', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await fullContact(ws.org.id);
    const json = (await update(ws.key, { id: contact.id, phones: [], emails: [] })).body.result.data.json;
    expect([json.phones, json.emails, json.primaryPhone, json.primaryEmail]).toEqual([[], [], null, null]);
  });

  it("is seen through the lead that uses the contact (the lead's name and phones are the contact's)", async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    expect((await update(ws.key, { id: lead.contactId, name: 'Via Contact', phones: ['020 7946 0011'] })).status).toBe(200);
    const seen = resultOf(await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key));
    expect(seen).toMatchObject({ name: 'Via Contact', phones: ['+442079460011'], contactId: lead.contactId });
  });

  it.each([
    ['name set to null', { name: null }, [['name']]],
    ['a blank name', { name: ' ' }, [['name']]],
    ['phones set to null', { phones: null }, [['phones']]],
    ['emails set to null', { emails: null }, [['emails']]],
    ['a bad email', { emails: ['nope'] }, [['emails', 0]]],
    ['an unknown key', { source: 'web' }, [['source']]],
    ['an expectedUpdatedAt without a zone', { expectedUpdatedAt: '2020-01-01T00:00:00' }, [['expectedUpdatedAt']]],
    ['an unreadable phone', { name: 'Half Written', phones: ['+442079460019', 'nope'] }, [['phones', 1]]],
  ])('answers 400 naming the field for %s, changing nothing', async (_label, patch, paths) => {
    const ws = await createWorkspace(ctx.db);
    const contact = await fullContact(ws.org.id);
    const before = await storedContact(ctx.db, ws.org.id, contact.id);
    const res = await update(ws.key, { id: contact.id, ...patch });
    expectRpcFailure(res, 'BAD_REQUEST', 'contacts.update');
    expect(issuePaths(res)).toEqual(paths);
    expect(await storedContact(ctx.db, ws.org.id, contact.id)).toEqual(before);
  });

  it('answers 403 naming contacts.update when the key lacks it, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await fullContact(ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read', 'contacts.create', 'leads.update'] });
    const before = await storedContact(ctx.db, ws.org.id, contact.id);
    const res = await update(key, { id: contact.id, name: 'x' });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'contacts.update').message).toBe('missing scope: contacts.update');
    expect(await storedContact(ctx.db, ws.org.id, contact.id)).toEqual(before);
  });
});

describe('POST contacts.update (other workspaces)', () => {
  it("answers 404 for another workspace's contact id and leaves that contact unchanged", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const contact = await fullContact(theirs.org.id);
    const before = await storedContact(ctx.db, theirs.org.id, contact.id);
    const res = await update(ws.key, { id: contact.id, name: 'Hijacked', company: null });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'contacts.update').message).toBe(`No contact ${JSON.stringify(contact.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(contact.name);
    expect(await storedContact(ctx.db, theirs.org.id, contact.id)).toEqual(before);
  });
});

describe('POST contacts.update (expectedUpdatedAt)', () => {
  it('answers 409 and writes nothing when the contact changed since expectedUpdatedAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await fullContact(ws.org.id);
    const before = await storedContact(ctx.db, ws.org.id, contact.id);
    const stale = new Date(contact.updatedAt.getTime() - 1);
    const res = await update(ws.key, { id: contact.id, name: 'Overwrite', expectedUpdatedAt: stale });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'contacts.update');
    expect(message).toContain(`The contact was changed at ${contact.updatedAt.toISOString()}`);
    expect(await storedContact(ctx.db, ws.org.id, contact.id)).toEqual(before);
  });

  it('answers 200 when expectedUpdatedAt matches, as a Date or an ISO string, and the next stale retry is a 409', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await fullContact(ws.org.id);
    const first = await update(ws.key, { id: contact.id, company: 'First', expectedUpdatedAt: contact.updatedAt });
    expect(first.status).toBe(200);
    const { updatedAt } = resultOf(first);
    const second = await update(ws.key, { id: contact.id, company: 'Second', expectedUpdatedAt: updatedAt.toISOString() });
    expect(second.status).toBe(200);
    expect(resultOf(second).company).toBe('Second');
    expectRpcFailure(await update(ws.key, { id: contact.id, company: 'Third', expectedUpdatedAt: updatedAt }), 'CONFLICT', 'contacts.update');
    expect((await storedContact(ctx.db, ws.org.id, contact.id)).company).toBe('Second');
  });
});

describe('POST contacts.update (concurrent calls with one expectedUpdatedAt)', () => {
  it('answers 200 to exactly one of 6 concurrent updates and 409 to the others; the row holds the winner', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await fullContact(ws.org.id);
    const names = [1, 2, 3, 4, 5, 6].map((i) => `Writer ${i}`);
    const responses = await Promise.all(names.map((name) => update(ws.key, { id: contact.id, name, expectedUpdatedAt: contact.updatedAt })));
    const winners = responses.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(5);
    expect((await storedContact(ctx.db, ws.org.id, contact.id)).name).toBe(resultOf(winners[0]!).name);
  });
});
