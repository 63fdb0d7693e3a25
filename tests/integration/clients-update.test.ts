import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { CLIENT_FIELDS, LONG_AGO, createClient, createContact, storedClient, storedContact } from '../helpers/contacts-clients-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function update(key: string, input: unknown) {
  return rpcPost(ctx.app, 'clients.update', input, key);
}

/** A client with every nullable field set. */
async function fullClient(orgId: string) {
  const contact = await createContact(ctx.db, orgId);
  return createClient(ctx.db, orgId, {
    name: unique('Full'), contactId: contact.id, company: 'Acme', email: 'billing@acme.example', phone: '+442079460018', notes: 'net 30',
  });
}

describe('POST clients.update (fields)', () => {
  it('changes only the given field: the others stay, updatedAt advances and is stored', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await fullClient(ws.org.id);
    const res = await update(ws.key, { id: client.id, notes: 'net 60' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...CLIENT_FIELDS]);
    const answered = resultOf(res);
    expect(answered).toEqual({ ...client, notes: 'net 60', updatedAt: expect.any(Date) });
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const row = await storedClient(ctx.db, ws.org.id, client.id);
    expect(row).toMatchObject({ notes: 'net 60', name: client.name, contact_id: client.contactId, phone: '+442079460018' });
    expect(row.updated_at).toEqual(answered.updatedAt);
  });

  it('clears contactId, company, email, phone and notes when sent as null', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await fullClient(ws.org.id);
    const res = await update(ws.key, { id: client.id, contactId: null, company: null, email: null, phone: null, notes: null });
    expect(res.status).toBe(200);
    const json = res.body.result.data.json;
    expect([json.contactId, json.company, json.email, json.phone, json.notes, json.name]).toEqual([null, null, null, null, null, client.name]);
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toMatchObject({ contact_id: null, company: null, email: null, phone: null, notes: null });
    expect(await storedContact(ctx.db, ws.org.id, client.contactId!)).toBeDefined();
  });

  it('renames, relinks to another contact of the workspace, normalises phone (region US) and email', async () => {
    const ws = await createWorkspace(ctx.db, { region: 'US' });
    const client = await fullClient(ws.org.id);
    const contact = await createContact(ctx.db, ws.org.id);
    const res = await update(ws.key, { id: client.id, name: ' Renamed ', contactId: contact.id, phone: '(201) 555-0123', email: 'AP@Beta.example' });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toMatchObject({ name: 'Renamed', contactId: contact.id, phone: '+12015550123', email: 'ap@beta.example' });
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toMatchObject({
      name: 'Renamed', contact_id: contact.id, phone: '+12015550123', email: 'ap@beta.example',
    });
  });

  it.each([
    ['name set to null', { name: null }, [['name']]],
    ['a blank name', { name: '' }, [['name']]],
    ['a bad email', { email: 'nope' }, [['email']]],
    ['a NUL character in notes', { notes: 'a\u0000b' }, [['notes']]],
    ['an unknown key', { status: 'ACTIVE' }, [['status']]],
    ['an invalid expectedUpdatedAt', { expectedUpdatedAt: 'yesterday' }, [['expectedUpdatedAt']]],
    ['an unreadable phone', { name: 'Half Written', phone: '12' }, [['phone']]],
  ])('answers 400 naming the field for %s, changing nothing', async (_label, patch, paths) => {
    const ws = await createWorkspace(ctx.db);
    const client = await fullClient(ws.org.id);
    const before = await storedClient(ctx.db, ws.org.id, client.id);
    const res = await update(ws.key, { id: client.id, ...patch });
    expectRpcFailure(res, 'BAD_REQUEST', 'clients.update');
    expect(issuePaths(res)).toEqual(paths);
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toEqual(before);
  });

  it('answers 403 naming clients.update when the key lacks it, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await fullClient(ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['clients.read', 'clients.create', 'contacts.update'] });
    const before = await storedClient(ctx.db, ws.org.id, client.id);
    const res = await update(key, { id: client.id, notes: 'x' });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'clients.update').message).toBe('missing scope: clients.update');
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toEqual(before);
  });
});

describe('POST clients.update (other workspaces)', () => {
  it("answers 404 for another workspace's client id and leaves that client unchanged", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const client = await fullClient(theirs.org.id);
    const before = await storedClient(ctx.db, theirs.org.id, client.id);
    const res = await update(ws.key, { id: client.id, name: 'Hijacked', notes: null });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'clients.update').message).toBe(`No client ${JSON.stringify(client.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(client.name);
    expect(await storedClient(ctx.db, theirs.org.id, client.id)).toEqual(before);
  });

  it("answers 404 naming contactId for another workspace's contact and writes none of the update", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const client = await fullClient(ws.org.id);
    const contact = await createContact(ctx.db, theirs.org.id, { name: unique('Theirs') });
    const before = await storedClient(ctx.db, ws.org.id, client.id);
    const theirContact = await storedContact(ctx.db, theirs.org.id, contact.id);
    const res = await update(ws.key, { id: client.id, name: 'Half Written', contactId: contact.id });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'clients.update').message).toBe(`contactId: no contact ${JSON.stringify(contact.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(contact.name);
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toEqual(before);
    expect(await storedContact(ctx.db, theirs.org.id, contact.id)).toEqual(theirContact);
  });
});

describe('POST clients.update (expectedUpdatedAt)', () => {
  it('answers 409 and writes nothing when the client changed since expectedUpdatedAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await fullClient(ws.org.id);
    const before = await storedClient(ctx.db, ws.org.id, client.id);
    const res = await update(ws.key, { id: client.id, notes: 'overwrite', expectedUpdatedAt: new Date(client.updatedAt.getTime() + 1) });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'clients.update');
    expect(message).toContain(`The client was changed at ${client.updatedAt.toISOString()}`);
    expect(await storedClient(ctx.db, ws.org.id, client.id)).toEqual(before);
  });

  it('answers 200 when expectedUpdatedAt matches, and a retry with the old value is then a 409', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await fullClient(ws.org.id);
    const first = await update(ws.key, { id: client.id, notes: 'first', expectedUpdatedAt: client.updatedAt });
    expect(first.status).toBe(200);
    expect(resultOf(first).notes).toBe('first');
    expectRpcFailure(await update(ws.key, { id: client.id, notes: 'again', expectedUpdatedAt: client.updatedAt }), 'CONFLICT', 'clients.update');
    expect((await storedClient(ctx.db, ws.org.id, client.id)).notes).toBe('first');
  });
});
