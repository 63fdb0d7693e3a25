import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { listLeads } from '../helpers/leads-rest';
import { expectRpcFailure } from '../helpers/leads-procedures-helpers';
import { createInvoice } from '../helpers/invoices-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

type Ws = Awaited<ReturnType<typeof createWorkspace>>;

const ids = (page: { data: { id: string }[] }) => page.data.map((r) => r.id);

async function restoredEvents(ws: Ws, type: string) {
  return resultOf(await rpcGet(ctx.app, 'events.getAll', { type }, ws.key)).data.map((e: { data: { object: { id: string } } }) => e.data.object.id);
}

describe('contacts.delete then contacts.restore', () => {
  it('gives back the same contact and its link from the clients it lost, listed in the trash meanwhile', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('ext');
    const contact = resultOf(await rpcPost(ctx.app, 'contacts.create', { name: unique('Person'), phones: ['+442079460555'], externalId }, ws.key));
    const client = resultOf(await rpcPost(ctx.app, 'clients.create', { name: unique('Client'), contactId: contact.id }, ws.key));
    expect((await rpcPost(ctx.app, 'contacts.delete', { id: contact.id }, ws.key)).status).toBe(200);
    expectRpcFailure(await rpcGet(ctx.app, 'contacts.getById', { id: contact.id }, ws.key), 'NOT_FOUND', 'contacts.getById');
    expect(resultOf(await rpcGet(ctx.app, 'contacts.getAll', { search: contact.name }, ws.key)).data).toEqual([]);
    expect(resultOf(await rpcGet(ctx.app, 'clients.getById', { id: client.id }, ws.key)).contactId).toBeNull();
    expect(resultOf(await rpcGet(ctx.app, 'contacts.getDeleted', {}, ws.key)).data).toEqual([{ ...contact, deletedAt: expect.any(Date) }]);

    expect(resultOf(await rpcPost(ctx.app, 'contacts.restore', { id: contact.id }, ws.key))).toEqual(contact);
    expect(resultOf(await rpcGet(ctx.app, 'contacts.getById', { id: contact.id }, ws.key))).toEqual(contact);
    expect(ids(resultOf(await rpcGet(ctx.app, 'contacts.getAll', { search: contact.name }, ws.key)))).toEqual([contact.id]);
    expect(resultOf(await rpcGet(ctx.app, 'clients.getById', { id: client.id }, ws.key))).toEqual(client);
    expect(await restoredEvents(ws, 'contact.restored')).toEqual([contact.id]);
  });

  it('answers 409 naming the externalId when another contact took it', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('ext');
    const contact = resultOf(await rpcPost(ctx.app, 'contacts.create', { name: unique('Person'), externalId }, ws.key));
    await rpcPost(ctx.app, 'contacts.delete', { id: contact.id }, ws.key);
    expect((await rpcPost(ctx.app, 'contacts.create', { name: unique('Other'), externalId }, ws.key)).status).toBe(200);
    const res = await rpcPost(ctx.app, 'contacts.restore', { id: contact.id }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'contacts.restore').message).toMatch(/^externalId ".*" is now held by another contact/);
  });

  it('still refuses to delete a contact that a lead uses', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'contacts.delete', { id: lead.contactId }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'contacts.delete').message).toBe(`Contact ${JSON.stringify(lead.contactId)} is used by a lead: delete the lead first`);
    expect(await ctx.db('trash').where({ org_id: ws.org.id })).toEqual([]);
  });
});

describe('clients.delete then clients.restore', () => {
  it('gives back the same client and its links from the leads (their stored JSON too) and tasks it lost', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = resultOf(await rpcPost(ctx.app, 'clients.create', { name: unique('Client'), externalId: unique('ext') }, ws.key));
    const lead = await createLead(ctx.db, ws.org.id, { clientId: client.id });
    const task = resultOf(await rpcPost(ctx.app, 'tasks.create', { title: 'Invoice them', clientId: client.id }, ws.key));
    const listed = (await listLeads(ctx.app, ws.key)).body.data;
    expect((await rpcPost(ctx.app, 'clients.delete', { id: client.id }, ws.key)).status).toBe(200);
    expect((await listLeads(ctx.app, ws.key)).body.data[0].clientId).toBeNull();
    expect(ids(resultOf(await rpcGet(ctx.app, 'clients.getDeleted', {}, ws.key)))).toEqual([client.id]);

    expect(resultOf(await rpcPost(ctx.app, 'clients.restore', { id: client.id }, ws.key))).toEqual(client);
    expect(resultOf(await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key))).toEqual(lead);
    expect((await listLeads(ctx.app, ws.key)).body.data).toEqual(listed);
    expect(resultOf(await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key))).toEqual(task);
    expect(await restoredEvents(ws, 'client.restored')).toEqual([client.id]);
  });

  it('still refuses to delete a client with invoices', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id, { status: 'SENT' });
    const res = await rpcPost(ctx.app, 'clients.delete', { id: invoice.clientId }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'clients.delete').message).toMatch(/has invoices: an invoiced client cannot be deleted$/);
    expect(await ctx.db('trash').where({ org_id: ws.org.id })).toEqual([]);
  });
});

describe('tasks.delete then tasks.restore', () => {
  it('gives back the same task; a lead it named that is in the trash is a 409', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const lead = await createLead(ctx.db, ws.org.id);
    const task = resultOf(await rpcPost(ctx.app, 'tasks.create', { title: unique('Task'), assignedToId: member.id, dueAt: new Date('2030-01-01T00:00:00Z') }, ws.key));
    const linked = resultOf(await rpcPost(ctx.app, 'tasks.create', { title: unique('Task'), leadId: lead.id }, ws.key));
    await rpcPost(ctx.app, 'tasks.delete', { id: task.id }, ws.key);
    expect(ids(resultOf(await rpcGet(ctx.app, 'tasks.getAll', {}, ws.key)))).toEqual([linked.id]);
    expect(resultOf(await rpcGet(ctx.app, 'tasks.getDeleted', {}, ws.key)).data).toEqual([{ ...task, deletedAt: expect.any(Date) }]);
    expect(resultOf(await rpcPost(ctx.app, 'tasks.restore', { id: task.id }, ws.key))).toEqual(task);
    expect(resultOf(await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key))).toEqual(task);
    expect(await restoredEvents(ws, 'task.restored')).toEqual([task.id]);

    // A task deleted while its lead was live, whose lead went to the trash since.
    await rpcPost(ctx.app, 'tasks.delete', { id: linked.id }, ws.key);
    await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    const res = await rpcPost(ctx.app, 'tasks.restore', { id: linked.id }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'tasks.restore').message).toMatch(/which is in the trash: restore the lead first$/);
  });
});

describe('invoices.delete then invoices.restore', () => {
  it('gives back the same draft invoice with its line items; 409 while its client is in the trash', async () => {
    const ws = await createWorkspace(ctx.db);
    const invoice = await createInvoice(ctx.db, ws.org.id);
    await rpcPost(ctx.app, 'invoices.delete', { id: invoice.id }, ws.key);
    expect(resultOf(await rpcGet(ctx.app, 'invoices.getAll', {}, ws.key)).data).toEqual([]);
    expect(resultOf(await rpcGet(ctx.app, 'invoices.getDeleted', {}, ws.key)).data).toEqual([{ ...invoice, deletedAt: expect.any(Date) }]);
    // Without invoices, its client may go to the trash; the invoice cannot come back without it.
    expect((await rpcPost(ctx.app, 'clients.delete', { id: invoice.clientId }, ws.key)).status).toBe(200);
    const res = await rpcPost(ctx.app, 'invoices.restore', { id: invoice.id }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'invoices.restore').message).toMatch(/which is in the trash: restore the client first$/);
    await rpcPost(ctx.app, 'clients.restore', { id: invoice.clientId }, ws.key);
    expect(resultOf(await rpcPost(ctx.app, 'invoices.restore', { id: invoice.id }, ws.key))).toEqual(invoice);
    expect(resultOf(await rpcGet(ctx.app, 'invoices.getById', { id: invoice.id }, ws.key))).toEqual(invoice);
    expect(await restoredEvents(ws, 'invoice.restored')).toEqual([invoice.id]);
  });
});

describe('scopes of the other resources', () => {
  it.each(['contacts', 'clients', 'tasks', 'invoices'])('%s: restore needs the delete scope and getDeleted the read scope', async (resource) => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    const prefix = { contacts: 'con', clients: 'cli', tasks: 'task', invoices: 'inv' }[resource];
    const restore = await rpcPost(ctx.app, `${resource}.restore`, { id: `${prefix}_0000000000000000000000` }, key);
    expect(expectRpcFailure(restore, 'FORBIDDEN', `${resource}.restore`).message).toBe(`missing scope: ${resource}.delete`);
    const list = await rpcGet(ctx.app, `${resource}.getDeleted`, {}, key);
    expect(expectRpcFailure(list, 'FORBIDDEN', `${resource}.getDeleted`).message).toBe(`missing scope: ${resource}.read`);
  });
});
