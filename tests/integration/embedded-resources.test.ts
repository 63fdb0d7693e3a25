import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcGet, rpcPost } from '../helpers/rpc';
import { CSV, uploadImport } from '../helpers/imports';
import { createProcedureRegistry } from '../../src/procedures';
import { EVENT_FAMILIES, EVENT_TYPES } from '../../src/events/event-types';

/**
 * No answer embeds fields of a resource whose read scope the caller lacks (a reference by id is
 * fine). Every procedure is called with a key holding its own scope only, and every event type is
 * read with each family's scope alone; every answer is searched for objects of another resource.
 */

const ctx = createTestContext();
afterAll(() => ctx.close());
const registry = createProcedureRegistry();

/** The resource an id belongs to, by its prefix; parts (a call, an invoice line) belong to their parent. */
const RESOURCE_OF_PREFIX: Record<string, string> = {
  lead: 'leads', call: 'leads', con: 'contacts', cli: 'clients', task: 'tasks', inv: 'invoices', line: 'invoices',
  mem: 'orgMembers', wh: 'webhooks', key: 'apiKeys', evt: 'events',
};

/** Every object in `value` that is a resource with fields beyond its id, with where it is and its read scope. */
function embeddedObjects(value: unknown, path: string[] = []): Array<{ path: string; readScope: string }> {
  if (Array.isArray(value)) return value.flatMap((item, i) => embeddedObjects(item, [...path, String(i)]));
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  const found: Array<{ path: string; readScope: string }> = [];
  const prefix = typeof object.id === 'string' ? /^([a-z]+)_/.exec(object.id)?.[1] : undefined;
  const resource = prefix ? RESOURCE_OF_PREFIX[prefix] : undefined;
  // An event's actor ({kind, id}) is a reference, as events.getAll answers it to any events.read.
  const isReference = Object.keys(object).every((field) => field === 'id' || field === 'kind');
  if (resource && !isReference) found.push({ path: path.join('.') || '(answer)', readScope: `${resource}.read` });
  for (const [field, child] of Object.entries(object)) found.push(...embeddedObjects(child, [...path, field]));
  return found;
}

/** The embedded objects this caller may not read. */
function unreadable(value: unknown, scopes: string[]): string[] {
  return embeddedObjects(value).filter((e) => !scopes.includes(e.readScope)).map((e) => `${e.path} needs ${e.readScope}`);
}

async function workspaceWithEverything() {
  const ws = await createWorkspace(ctx.db);
  const as = async (name: string, input: unknown) => {
    const res = await rpcPost(ctx.app, name, input, ws.key);
    if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.text}`);
    return res.body.result.data.json;
  };
  const lead = () => as('leads.create', { name: 'Ada Lovelace', phone: '+442079460001' });
  const client = () => as('clients.create', { name: 'Navy Ltd', email: 'billing@navy.example', notes: 'pays late' });
  const invoice = (clientId: string) => as('invoices.create', { clientId, currency: 'GBP', dueDate: '2030-01-31', items: [{ description: 'Work', quantity: 1, unitPrice: 100 }] });
  const queuedImport = async () => {
    const res = await uploadImport(ctx.app, ws.key, 'name,phone\nAda Lovelace,+442079460001\n', { type: CSV });
    if (res.status !== 202) throw new Error(`the import's upload answered ${res.status}: ${res.text}`);
    return res.body;
  };
  const [leadA, leadB, leadC, clientA, clientB] = [await lead(), await lead(), await lead(), await client(), await client()];
  return {
    ws,
    lead: leadA, toConvert: leadB, toDelete: leadC, client: clientA, clientToDelete: clientB,
    contact: await as('contacts.create', { name: 'Grace Hopper' }),
    contactToDelete: await as('contacts.create', { name: 'Alan Turing' }),
    contactToErase: await as('contacts.create', { name: 'Ada Lovelace' }),
    task: await as('tasks.create', { title: 'Call back', leadId: leadA.id, clientId: clientA.id }),
    taskToDelete: await as('tasks.create', { title: 'Old' }),
    invoice: await invoice(clientA.id), toPay: await invoice(clientA.id), toVoid: await invoice(clientA.id), invoiceToDelete: await invoice(clientA.id),
    webhook: await as('webhooks.create', { url: 'https://hooks.example.com/a', events: ['lead.created'] }),
    webhookToDelete: await as('webhooks.create', { url: 'https://hooks.example.com/b', events: ['lead.created'] }),
    // Two queued imports (no runner runs here): one to read, one to cancel.
    toRead: await queuedImport(),
    toCancel: await queuedImport(),
  };
}

/** Each exposed procedure's input, in an order where every id still exists when used. */
function callsOf(w: Awaited<ReturnType<typeof workspaceWithEverything>>): Array<[string, unknown]> {
  return [
    ['leads.getAll', {}], ['leads.getById', { id: w.lead.id }], ['leads.getCalls', { id: w.lead.id }], ['leads.getHistory', { id: w.lead.id }],
    ['contacts.getAll', {}], ['contacts.getById', { id: w.contact.id }], ['contacts.getHistory', { id: w.contact.id }], ['contacts.exportPersonalData', { id: w.contact.id }],
    ['clients.getAll', {}], ['clients.getById', { id: w.client.id }], ['clients.getHistory', { id: w.client.id }],
    ['tasks.getAll', {}], ['tasks.getById', { id: w.task.id }],
    ['invoices.getAll', {}], ['invoices.getById', { id: w.invoice.id }],
    ['orgMembers.getAll', {}], ['orgMembers.getById', { id: w.ws.member.id }],
    ['webhooks.getAll', {}], ['webhooks.getById', { id: w.webhook.id }], ['webhooks.getDeliveries', { id: w.webhook.id }],
    ['dashboard.getLeadStats', {}],
    ['imports.getAll', {}], ['imports.getById', { id: w.toRead.id }], ['imports.cancel', { id: w.toCancel.id }],
    ['leads.create', { name: 'Mary Somerville', phone: '+442079460002' }],
    ['leads.upsert', { externalId: 'crm-1', name: 'Mary Somerville', phone: '+442079460002' }],
    ['leads.update', { id: w.lead.id, notes: 'warm' }],
    ['leads.assign', { id: w.lead.id, assignedToId: w.ws.member.id }],
    ['leads.logCall', { id: w.lead.id, outcome: 'CONTACTED' }],
    ['leads.convert', { id: w.toConvert.id, clientId: w.client.id }],
    ['leads.delete', { id: w.toDelete.id }], ['leads.getDeleted', {}], ['leads.restore', { id: w.toDelete.id }],
    ['contacts.create', { name: 'Emmy Noether' }], ['contacts.update', { id: w.contact.id, company: 'Erlangen' }], ['contacts.delete', { id: w.contactToDelete.id }],
    ['contacts.getDeleted', {}], ['contacts.restore', { id: w.contactToDelete.id }],
    ['contacts.erase', { id: w.contactToErase.id }],
    ['clients.create', { name: 'Teal plc' }], ['clients.update', { id: w.client.id, notes: 'pays on time' }], ['clients.delete', { id: w.clientToDelete.id }],
    ['clients.getDeleted', {}], ['clients.restore', { id: w.clientToDelete.id }],
    ['tasks.create', { title: 'Send quote', leadId: w.lead.id, clientId: w.client.id }], ['tasks.update', { id: w.task.id, title: 'Call back soon' }],
    ['tasks.complete', { id: w.task.id }], ['tasks.delete', { id: w.taskToDelete.id }],
    ['tasks.getDeleted', {}], ['tasks.restore', { id: w.taskToDelete.id }],
    ['invoices.create', { clientId: w.client.id, currency: 'GBP', dueDate: '2030-02-28', items: [{ description: 'More', quantity: 2, unitPrice: 50 }] }],
    ['invoices.update', { id: w.invoice.id, dueDate: '2030-03-31' }],
    ['invoices.send', { id: w.toPay.id }], ['invoices.markPaid', { id: w.toPay.id }], ['invoices.void', { id: w.toVoid.id }],
    ['invoices.delete', { id: w.invoiceToDelete.id }], ['invoices.getDeleted', {}], ['invoices.restore', { id: w.invoiceToDelete.id }],
    ['webhooks.create', { url: 'https://hooks.example.com/c', events: ['lead.converted'] }],
    ['webhooks.update', { id: w.webhook.id, description: 'CRM sync' }], ['webhooks.rotateSecret', { id: w.webhook.id }],
    ['webhooks.redeliver', { id: w.webhook.id, since: new Date(0) }], ['webhooks.sendTestEvent', { id: w.webhook.id, type: 'lead.converted' }],
    ['webhooks.delete', { id: w.webhookToDelete.id }],
    ['events.getAll', {}],
  ];
}

describe('answers embed another resource only for a caller holding its read scope', () => {
  it('every exposed procedure, called with a key holding its scope alone, answers no object of a resource it cannot read', async () => {
    const w = await workspaceWithEverything();
    const calls = callsOf(w);
    const found: Record<string, string[]> = {};
    for (const [name, input] of calls) {
      const procedure = registry.get(name)!;
      const scopes = [procedure.scope, ...(procedure.alsoScopes ?? []), ...(name === 'webhooks.create' ? ['leads.read'] : [])]; // subscribing needs the events' read scope
      const { key } = await createKey(ctx.db, w.ws.org.id, { scopes });
      const res = procedure.method === 'GET' ? await rpcGet(ctx.app, name, input, key) : await rpcPost(ctx.app, name, input, key);
      expect({ name, status: res.status, text: res.status === 200 ? '' : res.text }).toEqual({ name, status: 200, text: '' });
      // A procedure answers its own resource (what it wrote or read) whatever its scope's action.
      const refused = unreadable(res.body.result.data.json, [...scopes, `${name.split('.')[0]}.read`]);
      if (refused.length > 0) found[name] = refused;
    }
    expect(found).toEqual({});
    // The walk covers the whole surface: a new procedure must be added above.
    const exposed = [...registry.values()].filter((p) => p.exposed).map((p) => p.name).sort();
    expect(calls.map(([name]) => name).sort()).toEqual(exposed);
  });

  it('leads.convert answers the client whole with clients.read, and its id alone without', async () => {
    const w = await workspaceWithEverything();
    const withClients = await createKey(ctx.db, w.ws.org.id, { scopes: ['leads.update', 'clients.read'] });
    const leadsOnly = await createKey(ctx.db, w.ws.org.id, { scopes: ['leads.update'] });
    const whole = await rpcPost(ctx.app, 'leads.convert', { id: w.toConvert.id, clientId: w.client.id }, withClients.key);
    expect(whole.body.result.data.json.client).toMatchObject({ id: w.client.id, email: 'billing@navy.example', notes: 'pays late' });
    const byId = await rpcPost(ctx.app, 'leads.convert', { id: w.lead.id, clientId: w.client.id }, leadsOnly.key);
    expect(byId.body.result.data.json.client).toEqual({ id: w.client.id });
    expect(byId.body.result.data.json.lead).toMatchObject({ id: w.lead.id, clientId: w.client.id, status: 'CONVERTED' });
  });

  it('events.getAll, read with each family\'s scope alone, carries no object of a resource that scope cannot read', async () => {
    const w = await workspaceWithEverything();
    for (const [name, input] of callsOf(w)) {
      const res = registry.get(name)!.method === 'GET' ? await rpcGet(ctx.app, name, input, w.ws.key) : await rpcPost(ctx.app, name, input, w.ws.key);
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
    }
    const seen = new Set<string>();
    for (const family of Object.values(EVENT_FAMILIES)) {
      const scopes = ['events.read', family.scope];
      const { key } = await createKey(ctx.db, w.ws.org.id, { scopes });
      const events = (await rpcGet(ctx.app, 'events.getAll', { pageSize: 100 }, key)).body.result.data.json.data as Array<{ type: string; data: unknown }>;
      for (const event of events) {
        seen.add(event.type);
        expect({ type: event.type, unreadable: unreadable(event.data, scopes) }).toEqual({ type: event.type, unreadable: [] });
      }
    }
    // Every event type a workspace's writes record was looked at (webhook.disabled and the import.*
    // events are the workers' own: an import's object is the import, tested in imports-run).
    expect([...seen].sort()).toEqual(EVENT_TYPES.filter((t) => t !== 'webhook.disabled' && !t.startsWith('import.')).sort());

    const converted = async (scopes: string[]) => {
      const { key } = await createKey(ctx.db, w.ws.org.id, { scopes });
      const events = (await rpcGet(ctx.app, 'events.getAll', { type: 'lead.converted' }, key)).body.result.data.json.data;
      return events[0].data.client;
    };
    expect(await converted(['events.read', 'leads.read'])).toEqual({ id: w.client.id });
    expect(await converted(['events.read', 'leads.read', 'clients.read'])).toMatchObject({ id: w.client.id, name: 'Navy Ltd' });
  });
});
