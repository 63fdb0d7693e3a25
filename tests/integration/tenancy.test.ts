import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcError } from '../helpers/rpc-edge-fixtures';
import {
  createFullWorkspace, idFieldsOf, idsIn, snapshotWorkspace, type FullWorkspace,
} from '../helpers/tenancy-fixtures';
import { procedures } from '../../src/procedures';
import { createRegistry, type AnyProcedure } from '../../src/rpc/registry';

/**
 * Tenancy (issue 7), generated from the registry. Workspace A's key is given workspace B's ids:
 * in any input field that names a record (`id`, `*Id`) the answer is a 404 in the envelope; as a
 * list filter, an empty page with total 0. Never B's data: no answer holds B's names, emails,
 * phones or ids (an id the caller sent may be echoed in the 404's message, which tells nothing),
 * and neither workspace's rows change. Every registered procedure taking an id must have its
 * inputs in the tables below: a new one fails the coverage test until it is added.
 */

const ctx = createTestContext();
// The app-only procedures (exposed: false) answer 403 to every key; this app exposes them, so
// their handlers' tenancy is shown too (the app calls them with a member's workspace).
const everyExposed = createTestContext({ registry: createRegistry(procedures.map((p): AnyProcedure => ({ ...p, exposed: true }))) });
afterAll(async () => {
  await ctx.close();
  await everyExposed.close();
});

type Ws = FullWorkspace;
/** The input of a call made with A's key: `b` names the record given in the field under test, `a` the caller's own. */
type CaseInput = (a: Ws, b: Ws) => Record<string, unknown>;

/** B's id in a field that names one record: 404 NOT_FOUND. Keyed by procedure, then by the field holding B's id. */
const RECORD_CASES: Record<string, Record<string, CaseInput>> = {
  'leads.getById': { id: (_a, b) => ({ id: b.leadId }) },
  'leads.getCalls': { id: (_a, b) => ({ id: b.leadId }) },
  'leads.getHistory': { id: (_a, b) => ({ id: b.leadId }) },
  'leads.create': { assignedToId: (_a, b) => ({ name: 'Tenancy', phone: '+442079460018', assignedToId: b.memberId }) },
  'leads.upsert': { assignedToId: (_a, b) => ({ externalId: 'tenancy-1', name: 'Tenancy', phone: '+442079460018', assignedToId: b.memberId }) },
  'leads.update': {
    id: (_a, b) => ({ id: b.leadId, notes: 'changed by A' }),
    assignedToId: (a, b) => ({ id: a.leadId, assignedToId: b.memberId }),
  },
  'leads.delete': { id: (_a, b) => ({ id: b.leadId }) },
  // B's id (of a live record, as of one in B's trash): 404 either way, nothing of B told.
  'leads.restore': { id: (_a, b) => ({ id: b.leadId }) },
  'leads.assign': {
    id: (a, b) => ({ id: b.leadId, assignedToId: a.memberId }),
    assignedToId: (a, b) => ({ id: a.leadId, assignedToId: b.memberId }),
  },
  'leads.logCall': { id: (_a, b) => ({ id: b.leadId, outcome: 'CONTACTED', notes: 'by A' }) },
  'leads.convert': {
    id: (a, b) => ({ id: b.leadId, clientId: a.clientId }),
    clientId: (a, b) => ({ id: a.leadId, clientId: b.clientId }),
  },
  'contacts.getById': { id: (_a, b) => ({ id: b.contactId }) },
  'contacts.getHistory': { id: (_a, b) => ({ id: b.contactId }) },
  'contacts.update': { id: (_a, b) => ({ id: b.contactId, company: 'changed by A' }) },
  'contacts.delete': { id: (_a, b) => ({ id: b.contactId }) },
  // B's id (of a live record, as of one in B's trash): 404 either way, nothing of B told.
  'contacts.restore': { id: (_a, b) => ({ id: b.contactId }) },
  'contacts.erase': { id: (_a, b) => ({ id: b.contactId }) },
  'contacts.exportPersonalData': { id: (_a, b) => ({ id: b.contactId }) },
  'clients.getById': { id: (_a, b) => ({ id: b.clientId }) },
  'clients.getHistory': { id: (_a, b) => ({ id: b.clientId }) },
  'clients.create': { contactId: (_a, b) => ({ name: 'Tenancy', contactId: b.contactId }) },
  'clients.update': {
    id: (_a, b) => ({ id: b.clientId, notes: 'changed by A' }),
    contactId: (a, b) => ({ id: a.clientId, contactId: b.contactId }),
  },
  'clients.delete': { id: (_a, b) => ({ id: b.clientId }) },
  // B's id (of a live record, as of one in B's trash): 404 either way, nothing of B told.
  'clients.restore': { id: (_a, b) => ({ id: b.clientId }) },
  'tasks.getById': { id: (_a, b) => ({ id: b.taskId }) },
  'tasks.create': {
    leadId: (_a, b) => ({ title: 'Tenancy', leadId: b.leadId }),
    clientId: (_a, b) => ({ title: 'Tenancy', clientId: b.clientId }),
    assignedToId: (_a, b) => ({ title: 'Tenancy', assignedToId: b.memberId }),
  },
  'tasks.update': {
    id: (_a, b) => ({ id: b.taskId, title: 'changed by A' }),
    leadId: (a, b) => ({ id: a.taskId, leadId: b.leadId }),
    clientId: (a, b) => ({ id: a.taskId, clientId: b.clientId }),
    assignedToId: (a, b) => ({ id: a.taskId, assignedToId: b.memberId }),
  },
  'tasks.complete': { id: (_a, b) => ({ id: b.taskId }) },
  'tasks.delete': { id: (_a, b) => ({ id: b.taskId }) },
  // B's id (of a live record, as of one in B's trash): 404 either way, nothing of B told.
  'tasks.restore': { id: (_a, b) => ({ id: b.taskId }) },
  'invoices.getById': { id: (_a, b) => ({ id: b.invoiceId }) },
  'invoices.create': {
    clientId: (_a, b) => ({ clientId: b.clientId, currency: 'GBP', dueDate: '2027-02-28', items: [{ description: 'Tenancy', quantity: 1, unitPrice: 100 }] }),
  },
  'invoices.update': {
    id: (_a, b) => ({ id: b.invoiceId, currency: 'EUR' }),
    clientId: (a, b) => ({ id: a.invoiceId, clientId: b.clientId }),
  },
  // B's invoice is a DRAFT: markPaid must still be a 404, not the 409 that would show it exists.
  'invoices.send': { id: (_a, b) => ({ id: b.invoiceId }) },
  'invoices.markPaid': { id: (_a, b) => ({ id: b.invoiceId }) },
  'invoices.void': { id: (_a, b) => ({ id: b.invoiceId }) },
  'invoices.delete': { id: (_a, b) => ({ id: b.invoiceId }) },
  // B's id (of a live record, as of one in B's trash): 404 either way, nothing of B told.
  'invoices.restore': { id: (_a, b) => ({ id: b.invoiceId }) },
  'orgMembers.getById': { id: (_a, b) => ({ id: b.memberId }) },
  'apiKeys.revoke': { id: (_a, b) => ({ id: b.keyId }) },
  'apiKeys.roll': { id: (_a, b) => ({ id: b.keyId }) },
  'apiKeys.getRequests': { id: (_a, b) => ({ id: b.keyId }) },
  'webhooks.getById': { id: (_a, b) => ({ id: b.webhookId }) },
  'webhooks.getDeliveries': { id: (_a, b) => ({ id: b.webhookId }) },
  'webhooks.update': { id: (_a, b) => ({ id: b.webhookId, description: 'changed by A' }) },
  'webhooks.rotateSecret': { id: (_a, b) => ({ id: b.webhookId }) },
  'webhooks.delete': { id: (_a, b) => ({ id: b.webhookId }) },
  'webhooks.redeliver': { id: (_a, b) => ({ id: b.webhookId, since: new Date(0) }) },
  'webhooks.sendTestEvent': { id: (_a, b) => ({ id: b.webhookId }) },
  'imports.getById': { id: (_a, b) => ({ id: b.importId }) },
  'imports.cancel': { id: (_a, b) => ({ id: b.importId }) },
};

/** B's id as a list filter: an empty page, total 0. `a` gives the same filter with A's own id (a control that finds A's record). */
const FILTER_CASES: Record<string, Record<string, CaseInput>> = {
  'leads.getAll': { assignedToId: (_a, b) => ({ assignedToId: b.memberId }) },
  'tasks.getAll': {
    assignedToId: (_a, b) => ({ assignedToId: b.memberId }),
    leadId: (_a, b) => ({ leadId: b.leadId }),
    clientId: (_a, b) => ({ clientId: b.clientId }),
  },
  'invoices.getAll': { clientId: (_a, b) => ({ clientId: b.clientId }) },
};

let a: Ws;
let b: Ws;
let bIds: Set<string>;

beforeAll(async () => {
  a = await createFullWorkspace(ctx.app, ctx.db, 'tenanta', '+442079460018');
  b = await createFullWorkspace(ctx.app, ctx.db, 'tenantb', '+12015550123');
  bIds = idsIn(await snapshotWorkspace(ctx.db, b.orgId));
}, 60_000);

/** Asserts an answer holds nothing of B: no marker, phone, key or id other than those the input carried. */
function expectNothingOfB(text: string, input: unknown): void {
  const sent = new Set(Object.values(input as Record<string, unknown>).filter((v): v is string => typeof v === 'string'));
  expect(text.toLowerCase()).not.toContain(b.marker);
  expect(text).not.toContain(b.phoneDigits);
  expect(text).not.toContain(b.key);
  expect([...bIds].filter((id) => !sent.has(id) && text.includes(id))).toEqual([]);
}

/** Runs `act` and asserts that neither workspace's rows changed (compared with just before, so a failure names its own case). */
async function expectBothUnchangedBy<T>(act: () => PromiseLike<T>): Promise<T> {
  const before = { a: await snapshotWorkspace(ctx.db, a.orgId), b: await snapshotWorkspace(ctx.db, b.orgId) };
  const result = await act();
  expect({ a: await snapshotWorkspace(ctx.db, a.orgId), b: await snapshotWorkspace(ctx.db, b.orgId) }).toEqual(before);
  return result;
}

function callAs(app: typeof ctx.app, procedure: AnyProcedure, input: unknown, key: string) {
  return procedure.method === 'GET' ? rpcGet(app, procedure.name, input, key) : rpcPost(app, procedure.name, input, key);
}

const takingIds = procedures.filter((p) => idFieldsOf(p.input).length > 0);
const recordCases = Object.entries(RECORD_CASES).flatMap(([name, cases]) => Object.entries(cases).map(([field, input]) => [name, field, input] as const));
const filterCases = Object.entries(FILTER_CASES).flatMap(([name, cases]) => Object.entries(cases).map(([field, input]) => [name, field, input] as const));
const procedureNamed = (name: string) => procedures.find((p) => p.name === name)!;

describe('the tables of inputs cover the registry', () => {
  it('finds procedures taking ids (the detection works)', () => {
    expect(takingIds.map((p) => p.name)).toEqual(expect.arrayContaining(['leads.getById', 'tasks.create', 'tasks.getAll', 'apiKeys.revoke']));
    expect(idFieldsOf(procedureNamed('tasks.update').input)).toEqual(['assignedToId', 'clientId', 'id', 'leadId']);
  });

  it.each(takingIds.map((p) => [p.name, p] as const))('%s has a case for every id field it takes', (name, procedure) => {
    const covered = Object.keys({ ...RECORD_CASES[name], ...FILTER_CASES[name] }).sort();
    expect({ procedure: name, idFields: covered }).toEqual({ procedure: name, idFields: idFieldsOf(procedure.input) });
  });

  it('names no procedure or field that is not registered', () => {
    for (const [name, field] of [...recordCases, ...filterCases]) {
      expect({ name, field, known: procedures.some((p) => p.name === name && idFieldsOf(p.input).includes(field)) }).toEqual({ name, field, known: true });
    }
  });
});

describe("A's key with B's id where a record is named", () => {
  it.each(recordCases)("%s with B's %s answers 404 NOT_FOUND, shows nothing of B and changes nothing", async (name, _field, makeInput) => {
    const procedure = procedureNamed(name);
    const input = makeInput(a, b);
    const app = procedure.exposed ? ctx.app : everyExposed.app;
    const res = await expectBothUnchangedBy(() => callAs(app, procedure, input, a.key));
    expectRpcError(res, 'NOT_FOUND', name);
    expectNothingOfB(res.text, input);
  });

  it.each(recordCases.filter(([name]) => !procedureNamed(name).exposed))('%s (app only) answers 403 through the API itself, whatever the id', async (name, _field, makeInput) => {
    const input = makeInput(a, b);
    const res = await expectBothUnchangedBy(() => callAs(ctx.app, procedureNamed(name), input, a.key));
    expect(expectRpcError(res, 'FORBIDDEN', name).message).toMatch(/not exposed/);
    expectNothingOfB(res.text, input);
  });
});

describe("A's key with B's id as a list filter", () => {
  it.each(filterCases)("%s filtered by B's %s answers an empty page with total 0", async (name, _field, makeInput) => {
    const input = makeInput(a, b);
    const res = await expectBothUnchangedBy(() => rpcGet(ctx.app, name, input, a.key));
    expect(res.status).toBe(200);
    const page = resultOf(res);
    expect({ data: page.data, total: page.pagination.total }).toEqual({ data: [], total: 0 });
    expectNothingOfB(res.text, input);
  });

  it.each(filterCases)("%s filtered by A's own %s finds A's record (the filter is applied)", async (name, _field, makeInput) => {
    const res = await rpcGet(ctx.app, name, makeInput(b, a), a.key);
    expect(res.status).toBe(200);
    expect(resultOf(res).pagination.total).toBe(1);
  });

  it("GET /api/v1/leads?assignedToId=<B's member> answers an empty page; A's own member finds A's lead", async () => {
    const other = await expectBothUnchangedBy(() => request(ctx.app).get('/api/v1/leads').query({ assignedToId: b.memberId }).set('Authorization', `Bearer ${a.key}`));
    expect(other.status).toBe(200);
    expect({ data: other.body.data, total: other.body.pagination.total }).toEqual({ data: [], total: 0 });
    expectNothingOfB(other.text, { assignedToId: b.memberId });
    const own = await request(ctx.app).get('/api/v1/leads').query({ assignedToId: a.memberId }).set('Authorization', `Bearer ${a.key}`);
    expect(own.body.data.map((l: { id: string }) => l.id)).toEqual([a.leadId]);
  });
});

describe("reads without ids never show B's records", () => {
  const reads = procedures.filter((p) => p.exposed && p.method === 'GET' && idFieldsOf(p.input).length === 0);

  it.each(reads.map((p) => [p.name, p] as const))("%s with A's key answers nothing of B", async (_name, procedure) => {
    const res = await rpcGet(ctx.app, procedure.name, undefined, a.key);
    expect(res.status).toBe(200);
    expectNothingOfB(res.text, {});
  });

  it("the REST list, searched for B's name, phone and email, finds nothing", async () => {
    for (const search of [b.marker, b.phoneDigits, `${b.marker}.lead@example.com`]) {
      const res = await request(ctx.app).get('/api/v1/leads').query({ search }).set('Authorization', `Bearer ${a.key}`);
      expect({ search, total: res.body.pagination.total }).toEqual({ search, total: 0 });
      expectNothingOfB(res.text, { search });
    }
  });
});

describe('a key of a workspace below the maximum tier', () => {
  it.each(['FREE', 'PRO'] as const)('a %s workspace key with every scope gets 403 on every action endpoint, GET and POST, and nothing changes', async (tier) => {
    const ws = await createFullWorkspace(ctx.app, ctx.db, `tier${tier}`, '+442079460019');
    await ctx.db('organisations').where({ id: ws.orgId }).update({ tier });
    // A key first used after the change (a verified key's workspace is cached with it).
    const { key } = await createKey(ctx.db, ws.orgId);
    const before = await snapshotWorkspace(ctx.db, ws.orgId);
    for (const procedure of procedures) {
      const makeInput = Object.values({ ...RECORD_CASES[procedure.name], ...FILTER_CASES[procedure.name] })[0];
      // The workspace's own ids where the procedure takes some, so only the tier can refuse the call.
      const input = makeInput ? makeInput(ws, ws) : procedure.method === 'POST' ? {} : undefined;
      const res = await callAs(ctx.app, procedure, input, key);
      expect({ procedure: procedure.name, status: res.status }).toEqual({ procedure: procedure.name, status: 403 });
      expect(expectRpcError(res, 'FORBIDDEN', procedure.name).message).toMatch(/BUSINESS/);
    }
    expect(await snapshotWorkspace(ctx.db, ws.orgId)).toEqual(before);
  });
});
