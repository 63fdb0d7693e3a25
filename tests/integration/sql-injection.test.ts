import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createLead, createWorkspace } from '../helpers/factories';
import { createContact } from '../helpers/contacts-clients-fixtures';
import { createInvoice } from '../helpers/invoices-fixtures';
import { createTask } from '../helpers/tasks-fixtures';
import { resultOf, rpcGet, rpcPost } from '../helpers/rpc';
import { TABLES } from '../../src/db/tables';

/**
 * SQL stays parameterised everywhere (issue 7). Classic injection strings go into `search` (the
 * REST list, leads.getAll, contacts.getAll, clients.getAll) and into every text field of the
 * create and update procedures, and nothing else happens: each string is stored and read back
 * verbatim, a search returns exactly the rows that literally contain it (`%`, `_` and `\` are
 * not wildcards), and another workspace's rows are untouched.
 */

const INJECTIONS = [
  "'; drop table leads; --",
  "' or '1'='1",
  "%' or 1=1 --",
  "\\'; select pg_sleep(5); --",
  '$1',
  '${}',
  '\\',
  '\\\\',
  '\\%',
  '%_%',
  "' union select secret_hash from api_keys --",
  '1; delete from contacts where true; --',
  '\u2019 or \u20181\u2019=\u20181',
  '\uff07 or 1=1 --',
  '$$; drop table tasks; $$',
  "E'\\x27'",
  ') or (1=1',
  '*/ or /*',
  '?',
  ':name',
];

const WORKSPACE_TABLES = [
  TABLES.leads, TABLES.contacts, TABLES.clients, TABLES.tasks, TABLES.invoices, TABLES.invoiceLineItems, TABLES.orgMembers, TABLES.apiKeys,
] as const;

const ctx = createTestContext();
let ws: Awaited<ReturnType<typeof createWorkspace>>;
let other: Awaited<ReturnType<typeof createWorkspace>>;
let otherCountsBefore: Record<string, number>;
let clientId: string;

async function countsOf(orgId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of WORKSPACE_TABLES) {
    const row = await ctx.db(table).where({ org_id: orgId }).count({ n: '*' }).first();
    counts[table] = Number(row?.n);
  }
  return counts;
}

beforeAll(async () => {
  other = await createWorkspace(ctx.db);
  const lead = await createLead(ctx.db, other.org.id, { name: "O'Brien", company: '100% Ltd' });
  await createContact(ctx.db, other.org.id, { name: 'Back\\slash' });
  const invoice = await createInvoice(ctx.db, other.org.id);
  await createTask(ctx.db, other.org.id, { leadId: lead.id });
  otherCountsBefore = await countsOf(other.org.id);
  ws = await createWorkspace(ctx.db);
  clientId = resultOf(await rpcPost(ctx.app, 'clients.create', { name: 'Invoice holder' }, ws.key)).id;
  expect(invoice.id).toBeDefined();
});
afterAll(() => ctx.close());

async function call(name: string, input: unknown, method: 'GET' | 'POST' = 'POST') {
  const res = method === 'GET' ? await rpcGet(ctx.app, name, input, ws.key) : await rpcPost(ctx.app, name, input, ws.key);
  expect({ name, status: res.status }).toEqual({ name, status: 200 });
  return resultOf(res);
}

const created = { leads: new Map<string, string>(), contacts: new Map<string, string>(), clients: new Map<string, string>() };

describe.each(INJECTIONS.map((text, i) => [text, i] as const))('the string %j', (text) => {
  const updated = `${text} (updated)`;

  it('is stored and read back verbatim in every text field of leads.create and leads.update', async () => {
    const lead = await call('leads.create', { name: text, phone: '+442079460018', company: text, source: text, notes: text });
    expect(lead).toMatchObject({ name: text, company: text, source: text, notes: text });
    created.leads.set(text, lead.id);
    await call('leads.update', { id: lead.id, company: updated, source: updated, notes: updated });
    expect(await call('leads.getById', { id: lead.id }, 'GET')).toMatchObject({ name: text, company: updated, source: updated, notes: updated });
  });

  it('is stored and read back verbatim by contacts.create and contacts.update', async () => {
    const contact = await call('contacts.create', { name: text, company: text });
    expect(contact).toMatchObject({ name: text, company: text });
    created.contacts.set(text, contact.id);
    await call('contacts.update', { id: contact.id, company: updated });
    expect(await call('contacts.getById', { id: contact.id }, 'GET')).toMatchObject({ name: text, company: updated });
  });

  it('is stored and read back verbatim by clients.create and clients.update', async () => {
    const client = await call('clients.create', { name: text, company: text, notes: text });
    expect(client).toMatchObject({ name: text, company: text, notes: text });
    created.clients.set(text, client.id);
    await call('clients.update', { id: client.id, notes: updated });
    expect(await call('clients.getById', { id: client.id }, 'GET')).toMatchObject({ name: text, company: text, notes: updated });
  });

  it('is stored and read back verbatim by tasks.create and tasks.update', async () => {
    const task = await call('tasks.create', { title: text, description: text });
    expect(task).toMatchObject({ title: text, description: text });
    await call('tasks.update', { id: task.id, title: updated, description: updated });
    expect(await call('tasks.getById', { id: task.id }, 'GET')).toMatchObject({ title: updated, description: updated });
  });

  it('is stored and read back verbatim as an invoice line by invoices.create and invoices.update', async () => {
    const line = { description: text, quantity: 1, unitPrice: 100 };
    const invoice = await call('invoices.create', { clientId, currency: 'GBP', dueDate: '2030-01-31', items: [line] });
    expect(invoice.items).toEqual([expect.objectContaining({ description: text })]);
    await call('invoices.update', { id: invoice.id, items: [line, { ...line, description: updated }] });
    const stored = await call('invoices.getById', { id: invoice.id }, 'GET');
    expect(stored.items.map((item: { description: string }) => item.description)).toEqual([text, updated]);
  });
});

/** The ids of rows some of whose fields contain `term`, case-insensitively, as a plain substring. */
function literallyMatching<T extends { id: string }>(rows: T[], term: string, fields: (row: T) => (string | null)[]): string[] {
  const needle = term.toLowerCase();
  return rows.filter((row) => fields(row).some((value) => value?.toLowerCase().includes(needle))).map((row) => row.id).sort();
}

interface ContactLike { id: string; name: string; company: string | null; emails: string[]; phones: string[] }
interface ClientLike { id: string; name: string; company: string | null; email: string | null; phone: string | null }
const contactFields = (row: ContactLike) => [row.name, row.company, ...row.emails, ...row.phones];
const clientFields = (row: ClientLike) => [row.name, row.company, row.email, row.phone];
const idsOf = (rows: { id: string }[]) => rows.map((row) => row.id).sort();

describe.each(INJECTIONS.map((text) => [text] as const))('searching for %j', (text) => {
  it('GET /api/v1/leads and leads.getAll return exactly the leads that contain it', async () => {
    const all: ContactLike[] = (await call('leads.getAll', { pageSize: 100 }, 'GET')).data;
    const expected = literallyMatching(all, text, contactFields);
    expect(expected).toContain(created.leads.get(text));
    expect(idsOf((await call('leads.getAll', { search: text, pageSize: 100 }, 'GET')).data)).toEqual(expected);
    const rest = await request(ctx.app).get('/api/v1/leads').query({ search: text, pageSize: 100 }).set('Authorization', `Bearer ${ws.key}`);
    expect(rest.status).toBe(200);
    expect(idsOf(rest.body.data)).toEqual(expected);
  });

  it('contacts.getAll returns exactly the contacts that contain it', async () => {
    const all: ContactLike[] = (await call('contacts.getAll', { pageSize: 100 }, 'GET')).data;
    const expected = literallyMatching(all, text, contactFields);
    expect(expected).toContain(created.contacts.get(text));
    expect(idsOf((await call('contacts.getAll', { search: text, pageSize: 100 }, 'GET')).data)).toEqual(expected);
  });

  it('clients.getAll returns exactly the clients that contain it', async () => {
    const all: ClientLike[] = (await call('clients.getAll', { pageSize: 100 }, 'GET')).data;
    const expected = literallyMatching(all, text, clientFields);
    expect(expected).toContain(created.clients.get(text));
    expect(idsOf((await call('clients.getAll', { search: text, pageSize: 100 }, 'GET')).data)).toEqual(expected);
  });
});

describe('nothing else happened', () => {
  it("left another workspace's rows exactly as they were", async () => {
    expect(await countsOf(other.org.id)).toEqual(otherCountsBefore);
  });

  it('wrote exactly the rows the calls asked for in this workspace, and every table is still there', async () => {
    const n = INJECTIONS.length;
    expect(await countsOf(ws.org.id)).toEqual({
      [TABLES.leads]: n,
      [TABLES.contacts]: 2 * n, // one per lead, one per contacts.create
      [TABLES.clients]: n + 1,
      [TABLES.tasks]: n,
      [TABLES.invoices]: n,
      [TABLES.invoiceLineItems]: 2 * n,
      [TABLES.orgMembers]: 1,
      [TABLES.apiKeys]: 1,
    });
  });
});
