import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createWorkspace, unique } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { LEAD_FIELDS, expectRpcFailure, issuePaths, snapshot, storedLead } from '../helpers/leads-procedures-helpers';
import { countClients, refuseWritesWhere } from '../helpers/leads-actions-fixtures';
import * as clientsQueries from '../../src/db/clients';
import { INITIAL_LEAD_STATUSES } from '../../src/domain/lead-status';

const ctx = createTestContext();
afterAll(() => ctx.close());

const LONG_AGO = new Date('2020-01-01T00:00:00.000Z');
const CLIENT_FIELDS = ['company', 'contactId', 'createdAt', 'email', 'externalId', 'id', 'name', 'notes', 'phone', 'updatedAt'];

function convert(key: string, input: unknown) {
  return rpcPost(ctx.app, 'leads.convert', input, key);
}

async function leadOf(orgId: string, overrides: Parameters<typeof createLead>[2] = {}) {
  const lead = await createLead(ctx.db, orgId, {
    name: unique('Convert'), phones: ['+442079460018', '+442079460019'], emails: ['first@example.com', 'second@example.com'], company: 'Acme Ltd', ...overrides,
  });
  await ctx.db('leads').where({ org_id: orgId, id: lead.id }).update({ updated_at: LONG_AGO });
  return { ...lead, updatedAt: LONG_AGO };
}

function clientOf(orgId: string, name = unique('Client')) {
  return clientsQueries.insert(ctx.db, orgId, { name, contactId: null, company: 'Existing Co', email: 'billing@example.com', phone: null, notes: null });
}

/** The lead (with its converted_at) and the workspace's clients, to compare before and after a refused call. */
async function state(orgId: string, leadId: string) {
  return { ...(await snapshot(ctx.db, orgId, leadId)), clients: await ctx.db('clients').where({ org_id: orgId }).orderBy('id') };
}

describe('POST leads.convert', () => {
  it("creates a client from the lead's contact and marks the lead CONVERTED with converted_at and client_id", async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { status: 'QUALIFIED', notes: 'lead notes' });
    const before = Date.now();
    const res = await convert(ws.key, { id: lead.id });
    expect(res.status).toBe(200);
    const json = res.body.result.data.json;
    expect(Object.keys(json).sort()).toEqual(['client', 'lead']);
    expect(Object.keys(json.lead).sort()).toEqual([...LEAD_FIELDS]);
    expect(Object.keys(json.client).sort()).toEqual(CLIENT_FIELDS);
    const { lead: answered, client } = resultOf(res);
    expect(client).toEqual({
      id: expect.stringMatching(/^cli_/), name: lead.name, contactId: lead.contactId, company: 'Acme Ltd',
      email: 'first@example.com', phone: '+442079460018', notes: null, createdAt: expect.any(Date), updatedAt: expect.any(Date), externalId: null,
    });
    expect(answered).toEqual({ ...lead, status: 'CONVERTED', clientId: client.id, updatedAt: expect.any(Date) });
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const row = await storedLead(ctx.db, ws.org.id, lead.id);
    expect(row).toMatchObject({ status: 'CONVERTED', client_id: client.id, notes: 'lead notes' });
    expect(row.converted_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row.converted_at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(await ctx.db('clients').where({ org_id: ws.org.id })).toEqual([
      expect.objectContaining({ id: client.id, name: lead.name, contact_id: lead.contactId, company: 'Acme Ltd', email: 'first@example.com', phone: '+442079460018' }),
    ]);
  });

  it('creates a client with null email and phone from a contact that has none', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { phones: [], emails: [], company: null });
    const { client } = resultOf(await convert(ws.key, { id: lead.id }));
    expect(client).toMatchObject({ name: lead.name, email: null, phone: null, company: null });
  });

  it('links an existing client of the workspace given as clientId, creating none', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const existing = await clientOf(ws.org.id);
    const res = await convert(ws.key, { id: lead.id, clientId: existing.id });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual({ lead: expect.objectContaining({ status: 'CONVERTED', clientId: existing.id }), client: existing });
    expect(await storedLead(ctx.db, ws.org.id, lead.id)).toMatchObject({ status: 'CONVERTED', client_id: existing.id });
    expect(await countClients(ctx.db, ws.org.id)).toBe(1);
  });

  it('links the client the lead is already linked to when no clientId is given, creating none', async () => {
    const ws = await createWorkspace(ctx.db);
    const existing = await clientOf(ws.org.id);
    const lead = await leadOf(ws.org.id, { clientId: existing.id });
    const res = await convert(ws.key, { id: lead.id });
    expect(resultOf(res).client).toEqual(existing);
    expect(await countClients(ctx.db, ws.org.id)).toBe(1);
  });

  it.each(INITIAL_LEAD_STATUSES)('converts a %s lead', async (status) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { status });
    expect((await convert(ws.key, { id: lead.id })).status).toBe(200);
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).status).toBe('CONVERTED');
  });

  it.each([
    ['no id', () => ({}), [['id']]],
    ['an empty clientId', (id: string) => ({ id, clientId: '' }), [['clientId']]],
    ['a null clientId', (id: string) => ({ id, clientId: null }), [['clientId']]],
    ['an unknown key', (id: string) => ({ id, status: 'CONVERTED' }), [['status']]],
  ])('answers 400 for %s, changing nothing', async (_label, inputFor, paths) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const before = await state(ws.org.id, lead.id);
    const res = await convert(ws.key, inputFor(lead.id));
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.convert');
    expect(issuePaths(res)).toEqual(paths);
    expect(await state(ws.org.id, lead.id)).toEqual(before);
  });

  it('answers 403 naming leads.update when the key lacks it, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read', 'leads.create'] });
    const before = await state(ws.org.id, lead.id);
    expect(expectRpcFailure(await convert(key, { id: lead.id }), 'FORBIDDEN', 'leads.convert').message).toBe('missing scope: leads.update');
    expect(await state(ws.org.id, lead.id)).toEqual(before);
  });
});

describe('POST leads.convert (other workspaces)', () => {
  it("answers 404 for another workspace's lead: it stays unconverted and no client is made anywhere", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await leadOf(theirs.org.id);
    const before = await state(theirs.org.id, lead.id);
    const res = await convert(ws.key, { id: lead.id });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'leads.convert').message).toBe(`No lead ${JSON.stringify(lead.id)} in this workspace`);
    expect(await state(theirs.org.id, lead.id)).toEqual(before);
    expect(await countClients(ctx.db, ws.org.id)).toBe(0);
  });

  it("answers 404 naming clientId for another workspace's client: lead and clients of both workspaces unchanged", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const theirClient = await clientOf(theirs.org.id);
    const mine = await state(ws.org.id, lead.id);
    const theirClients = await ctx.db('clients').where({ org_id: theirs.org.id });
    const res = await convert(ws.key, { id: lead.id, clientId: theirClient.id });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'leads.convert').message).toBe(`clientId: no client ${JSON.stringify(theirClient.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain('Existing Co');
    expect(await state(ws.org.id, lead.id)).toEqual(mine);
    expect(await ctx.db('clients').where({ org_id: theirs.org.id })).toEqual(theirClients);
  });
});

describe('POST leads.convert (refused and failed conversions)', () => {
  it('answers 409 CONFLICT naming CONVERTED when the lead is already CONVERTED, creating no client', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { status: 'CONVERTED' });
    const before = await state(ws.org.id, lead.id);
    const res = await convert(ws.key, { id: lead.id });
    expect(expectRpcFailure(res, 'CONFLICT', 'leads.convert').message).toBe('Cannot move a lead from CONVERTED to CONVERTED: it is already converted');
    expect(await state(ws.org.id, lead.id)).toEqual(before);
  });

  it('answers 409 to a second conversion and keeps the first one', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const first = resultOf(await convert(ws.key, { id: lead.id }));
    const other = await clientOf(ws.org.id);
    expectRpcFailure(await convert(ws.key, { id: lead.id, clientId: other.id }), 'CONFLICT', 'leads.convert');
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).client_id).toBe(first.client.id);
  });

  it('leaves the lead unconverted when the client insert fails (one transaction)', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const before = await state(ws.org.id, lead.id);
    const cleanUp = await refuseWritesWhere(ctx.db, 'clients', 'name', lead.name);
    try {
      expect((await convert(ws.key, { id: lead.id })).status).toBe(500);
    } finally {
      await cleanUp();
    }
    expect(await state(ws.org.id, lead.id)).toEqual(before);
  });

  it('keeps no new client when the lead cannot be marked converted after the client was inserted', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const before = await state(ws.org.id, lead.id);
    const cleanUp = await refuseWritesWhere(ctx.db, 'leads', 'id', lead.id);
    try {
      expect((await convert(ws.key, { id: lead.id })).status).toBe(500);
    } finally {
      await cleanUp();
    }
    expect(await state(ws.org.id, lead.id)).toEqual(before);
    expect(await countClients(ctx.db, ws.org.id)).toBe(0);
  });
});
