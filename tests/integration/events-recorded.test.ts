import { failsAfterEvent } from '../helpers/failing-write';
import { createTestContext } from '../helpers/test-app';
import { createKey, createMember, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { createRegistry } from '../../src/rpc/registry';
import { procedures } from '../../src/procedures';
import { newId } from '../../src/domain/ids';
import { EVENT_READ_SCOPES } from '../../src/events/event-types';

const ctx = createTestContext({ registry: createRegistry([...procedures, failsAfterEvent]) });
afterAll(() => ctx.close());

/** The workspace's events, oldest first, as stored. */
async function storedEvents(orgId: string) {
  return ctx.db('events').where({ org_id: orgId }).orderBy('seq').select('id', 'type', 'actor_kind', 'actor_id', 'object_id', 'data');
}

async function call(key: string, name: string, input: unknown) {
  const res = await rpcPost(ctx.app, name, input, key);
  if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.text}`);
  return { output: resultOf(res), json: res.body.result.data.json };
}

const typesOf = (events: { type: string }[]) => events.map((e) => e.type);

describe('every write records its events in its transaction', () => {
  it('leads: created (with its contact), updated, status_changed and assigned with from/to, call_logged, converted (with the new client), deleted', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const created = await call(ws.key, 'leads.create', { name: 'Ada Lovelace', phone: '+442079460001' });
    const lead = created.output;
    let events = await storedEvents(ws.org.id);
    expect(typesOf(events)).toEqual(['contact.created', 'lead.created']);
    // The object is the lead exactly as the API answered it (dates as ISO text).
    expect(events[1]!.data).toEqual({ object: created.json });
    expect(events[1]).toMatchObject({ actor_kind: 'apiKey', actor_id: ws.keyId, object_id: lead.id });
    expect(events[0]!.data.object).toMatchObject({ id: lead.contactId, name: 'Ada Lovelace' });

    await call(ws.key, 'leads.update', { id: lead.id, status: 'QUALIFIED', notes: 'warm' });
    await call(ws.key, 'leads.assign', { id: lead.id, assignedToId: member.id });
    await call(ws.key, 'leads.update', { id: lead.id, name: 'Ada King' });
    events = (await storedEvents(ws.org.id)).slice(2);
    expect(typesOf(events)).toEqual(['lead.updated', 'lead.status_changed', 'lead.updated', 'lead.assigned', 'contact.updated', 'lead.updated']);
    expect(events[1]!.data).toMatchObject({ from: 'NOT_CONTACTED', to: 'QUALIFIED', object: { id: lead.id, status: 'QUALIFIED' } });
    expect(events[3]!.data).toMatchObject({ from: null, to: member.id, object: { assignedToId: member.id } });
    expect(events[4]!.data.object).toMatchObject({ id: lead.contactId, name: 'Ada King' });

    const logged = await call(ws.key, 'leads.logCall', { id: lead.id, outcome: 'CONTACTED' });
    events = (await storedEvents(ws.org.id)).slice(8);
    expect(typesOf(events)).toEqual(['lead.call_logged', 'lead.updated', 'lead.status_changed']);
    expect(events[0]!.data).toEqual({ object: logged.json.lead, call: logged.json.call });
    expect(events[2]!.data).toMatchObject({ from: 'QUALIFIED', to: 'CONTACTED' });

    const converted = await call(ws.key, 'leads.convert', { id: lead.id });
    events = (await storedEvents(ws.org.id)).slice(11);
    expect(typesOf(events)).toEqual(['client.created', 'lead.converted', 'lead.updated', 'lead.status_changed']);
    expect(events[0]!.data).toEqual({ object: converted.json.client });
    expect(events[1]!.data).toEqual({ object: converted.json.lead, client: converted.json.client });
    expect(events[3]!.data).toMatchObject({ from: 'CONTACTED', to: 'CONVERTED' });

    const lastSeen = (await rpcPost(ctx.app, 'leads.update', { id: lead.id, notes: 'final' }, ws.key)).body.result.data.json;
    await call(ws.key, 'leads.delete', { id: lead.id });
    events = (await storedEvents(ws.org.id)).slice(16);
    expect(typesOf(events)).toEqual(['lead.deleted']);
    expect(events[0]!.data).toEqual({ object: lastSeen });
  });

  it('contacts and clients: created, updated, deleted, each carrying the object as answered', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await call(ws.key, 'contacts.create', { name: 'Grace', phones: ['+442079460002'] });
    const contactUpdated = await call(ws.key, 'contacts.update', { id: contact.output.id, company: 'Navy' });
    const client = await call(ws.key, 'clients.create', { name: 'Navy Ltd', contactId: contact.output.id });
    const clientUpdated = await call(ws.key, 'clients.update', { id: client.output.id, notes: 'big' });
    await call(ws.key, 'clients.delete', { id: client.output.id });
    await call(ws.key, 'contacts.delete', { id: contact.output.id });
    const events = await storedEvents(ws.org.id);
    expect(typesOf(events)).toEqual([
      'contact.created', 'contact.updated', 'client.created', 'client.updated', 'client.deleted', 'contact.deleted',
    ]);
    expect(events.map((e) => e.data.object)).toEqual([
      contact.json, contactUpdated.json, client.json, clientUpdated.json, clientUpdated.json, contactUpdated.json,
    ]);
  });

  it('tasks: created, updated, completed (by complete and by update to DONE), deleted', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = await call(ws.key, 'tasks.create', { title: 'Call back' });
    const completed = await call(ws.key, 'tasks.complete', { id: task.output.id });
    await call(ws.key, 'tasks.update', { id: task.output.id, status: 'OPEN' });
    await call(ws.key, 'tasks.update', { id: task.output.id, status: 'DONE' });
    await call(ws.key, 'tasks.delete', { id: task.output.id });
    const events = await storedEvents(ws.org.id);
    expect(typesOf(events)).toEqual([
      'task.created', 'task.updated', 'task.completed', 'task.updated', 'task.updated', 'task.completed', 'task.deleted',
    ]);
    expect(events[2]!.data).toEqual({ object: completed.json });
  });

  it('invoices: created, updated, sent, paid, voided (each with from/to) and deleted', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await call(ws.key, 'clients.create', { name: 'Payer' });
    const items = [{ description: 'Work', quantity: 1, unitPrice: 1000 }];
    const draft = await call(ws.key, 'invoices.create', { clientId: client.output.id, currency: 'GBP', dueDate: '2030-01-31', items });
    await call(ws.key, 'invoices.update', { id: draft.output.id, dueDate: '2030-02-28' });
    await call(ws.key, 'invoices.send', { id: draft.output.id });
    const paid = await call(ws.key, 'invoices.markPaid', { id: draft.output.id });
    const other = await call(ws.key, 'invoices.create', { clientId: client.output.id, currency: 'GBP', dueDate: '2030-01-31', items });
    await call(ws.key, 'invoices.send', { id: other.output.id });
    await call(ws.key, 'invoices.void', { id: other.output.id });
    const third = await call(ws.key, 'invoices.create', { clientId: client.output.id, currency: 'GBP', dueDate: '2030-01-31', items });
    await call(ws.key, 'invoices.delete', { id: third.output.id });
    const events = (await storedEvents(ws.org.id)).filter((e) => e.type.startsWith('invoice.'));
    expect(typesOf(events)).toEqual([
      'invoice.created', 'invoice.updated', 'invoice.updated', 'invoice.sent', 'invoice.updated', 'invoice.paid',
      'invoice.created', 'invoice.updated', 'invoice.sent', 'invoice.updated', 'invoice.voided',
      'invoice.created', 'invoice.deleted',
    ]);
    expect(events[3]!.data).toMatchObject({ from: 'DRAFT', to: 'SENT' });
    expect(events[5]!.data).toEqual({ object: paid.json, from: 'SENT', to: 'PAID' });
    expect(events[10]!.data).toMatchObject({ from: 'SENT', to: 'VOID' });
    expect(events[12]!.data).toEqual({ object: third.json });
  });

  it('names the calling key as the actor', async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createKey(ctx.db, ws.org.id);
    await call(other.key, 'contacts.create', { name: 'By another key' });
    expect(await storedEvents(ws.org.id)).toEqual([expect.objectContaining({ actor_kind: 'apiKey', actor_id: other.id })]);
  });
});

describe('a write that fails records nothing', () => {
  it('a refused write (409, stale expectedUpdatedAt) leaves no event', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await call(ws.key, 'contacts.create', { name: 'Stale' });
    const res = await rpcPost(ctx.app, 'contacts.update', { id: contact.output.id, name: 'x', expectedUpdatedAt: new Date('2020-01-01') }, ws.key);
    expect(res.status).toBe(409);
    expect(typesOf(await storedEvents(ws.org.id))).toEqual(['contact.created']);
  });

  it('an event recorded before the write fails is rolled back with it, deliveries too', async () => {
    const ws = await createWorkspace(ctx.db);
    await ctx.db('webhook_endpoints').insert({
      org_id: ws.org.id, id: newId('wh'), url: 'http://127.0.0.1:9/hook', events: ['*'], secret: 'whsec_test',
      owner_kind: 'apiKey', owner_id: ws.keyId, read_scopes: [...EVENT_READ_SCOPES],
    });
    const deliveries = async () => (await ctx.db('webhook_deliveries').where({ org_id: ws.org.id }).select('event_id')).map((d) => d.event_id).sort();
    const lead = await call(ws.key, 'leads.create', { name: 'Rolled back', phone: '+442079460003' });
    const before = await storedEvents(ws.org.id);
    // The committed write fanned out to the endpoint: one delivery per event.
    expect(await deliveries()).toEqual(before.map((e) => e.id).sort());
    const res = await rpcPost(ctx.app, 'testing.failAfterEvent', { id: lead.output.id }, ws.key);
    expect(res.status).toBe(500);
    expect(await storedEvents(ws.org.id)).toEqual(before);
    expect(await deliveries()).toEqual(before.map((e) => e.id).sort());
  });
});
