import type { Db } from '../../src/db/knex';
import { TABLES } from '../../src/db/tables';
import { createTestContext } from '../helpers/test-app';
import { createLead, createWorkspace, unique } from '../helpers/factories';
import { createClient } from '../helpers/contacts-clients-fixtures';
import { errorOf, rpcPost } from '../helpers/rpc';
import { expectRpcFailure, snapshot } from '../helpers/leads-procedures-helpers';

/**
 * A newcomer's first hour: every problem of an input comes back in ONE answer, whichever rule
 * finds it (the schema, reading a phone in the workspace's region, an email, a currency, an id that
 * names no record of the workspace), and a write with any problem writes nothing at all.
 */

const ctx = createTestContext();
afterAll(() => ctx.close());

/** Every table a write of these procedures may touch, with the workspace's row count in each. */
const WRITTEN = [TABLES.contacts, TABLES.leads, TABLES.clients, TABLES.tasks, TABLES.invoices, TABLES.invoiceLineItems, TABLES.events] as const;

async function rowCounts(db: Db, orgId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of WRITTEN) {
    const row = await db(table).where({ org_id: orgId }).count({ n: '*' }).first();
    counts[table] = Number(row?.n);
  }
  return counts;
}

/** The issues of a 400 by path (`phones.1`), each with its message. */
function issuesByPath(res: { status: number; body: any }, procedure: string): Record<string, string> {
  const { issues } = expectRpcFailure(res, 'BAD_REQUEST', procedure);
  return Object.fromEntries(issues!.map((issue) => [issue.path.join('.'), issue.message]));
}

const MISSING_MEMBER = 'mem_nobodyHere000000000000';
const MISSING_LEAD = 'lead_nothingHere00000000000';
const MISSING_CLIENT = 'cli_nothingHere000000000000';

describe('POST leads.create with several bad fields', () => {
  it('answers the brief\'s {"name":"","phone":"12345","email":"nope"} with name, phone and email in one 400', async () => {
    const ws = await createWorkspace(ctx.db);
    const before = await rowCounts(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'leads.create', { name: '', phone: '12345', email: 'nope' }, ws.key);

    expect(issuesByPath(res, 'leads.create')).toEqual({
      name: 'expected non-blank text of at most 200 characters, got empty text',
      phone: 'expected a phone number in E.164, e.g. +447400123456, or in the national format of region GB, e.g. 07400 123456, got "12345"',
      email: 'expected an email address, e.g. ana@example.com, got "nope"',
    });
    expect(await rowCounts(ctx.db, ws.org.id)).toEqual(before);
  });

  it('answers schema, phone, email, date, enum, unknown-field and reference problems together, writing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const before = await rowCounts(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'leads.create', {
      name: '   ',
      phone: '12345',
      phones: ['+442079460018', 'call me'],
      email: 'nope',
      status: 'qualified',
      nextCallAt: '2026-12-03 10:00',
      assignedToId: MISSING_MEMBER,
      priority: 'high',
    }, ws.key);

    const issues = issuesByPath(res, 'leads.create');
    expect(Object.keys(issues).sort()).toEqual(['assignedToId', 'email', 'name', 'nextCallAt', 'phone', 'phones.1', 'priority', 'status']);
    expect(issues.nextCallAt).toBe('expected an ISO 8601 date-time with a time zone, e.g. 2026-12-03T10:00:00Z, got "2026-12-03 10:00"');
    expect(issues.assignedToId).toBe(`no member ${JSON.stringify(MISSING_MEMBER)} in this workspace`);
    expect(issues.status).toMatch(/^expected one of NOT_CONTACTED, CONTACTED, .*, got "qualified"$/);
    expect(issues.priority).toMatch(/^unknown field; expected only the fields name, phone, /);
    expect(errorOf(res).message).toMatch(/^Invalid input: name: .*\(and 5 more\)$/);
    expect(await rowCounts(ctx.db, ws.org.id)).toEqual(before);
  });

  it('reads the phone in the workspace\'s own region: a GB number in a US workspace fails beside the other problems', async () => {
    const ws = await createWorkspace(ctx.db, { region: 'US' });
    const res = await rpcPost(ctx.app, 'leads.create', { name: '', phone: '020 7946 0018' }, ws.key);

    expect(issuesByPath(res, 'leads.create')).toEqual({
      name: 'expected non-blank text of at most 200 characters, got empty text',
      phone: 'expected a phone number in E.164, e.g. +12015550123, or in the national format of region US, e.g. (201) 555-0123, got "020 7946 0018"',
    });
  });

  it('does not look up an id that failed the schema, but still looks up one that passed it', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcPost(ctx.app, 'leads.create', { name: '', phone: '+442079460018', assignedToId: 42 }, ws.key);
    expect(issuesByPath(res, 'leads.create').assignedToId).toBe('expected a member id, e.g. mem_3kTMd9VbX2qLr7NwY5pHcZ, got the number 42');
  });
});

describe('POST leads.update with several bad fields', () => {
  it('answers every problem in one 400 and changes neither the lead nor its contact', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const before = { rows: await rowCounts(ctx.db, ws.org.id), lead: await snapshot(ctx.db, ws.org.id, lead.id) };
    const res = await rpcPost(ctx.app, 'leads.update', {
      id: lead.id,
      name: '',
      phones: ['+442079460018', '12345'],
      emails: ['ana@example.com', 'nope'],
      nextCallAt: 'tomorrow',
      status: 'WHATEVER',
      assignedToId: MISSING_MEMBER,
      expectedUpdatedAt: '2026-01-01',
    }, ws.key);

    const issues = issuesByPath(res, 'leads.update');
    expect(Object.keys(issues).sort()).toEqual(['assignedToId', 'emails.1', 'expectedUpdatedAt', 'name', 'nextCallAt', 'phones.1', 'status']);
    expect(issues['phones.1']).toMatch(/^expected a phone number in E\.164, e\.g\. \+447400123456, or in the national format of region GB, /);
    expect(issues.assignedToId).toBe(`no member ${JSON.stringify(MISSING_MEMBER)} in this workspace`);
    expect({ rows: await rowCounts(ctx.db, ws.org.id), lead: await snapshot(ctx.db, ws.org.id, lead.id) }).toEqual(before);
  });
});

describe('POST contacts.create with several bad fields', () => {
  it('answers name, every bad phone and email, and company in one 400, writing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const before = await rowCounts(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'contacts.create', {
      name: '',
      phones: ['12345', '+442079460018', 'nope'],
      emails: ['nope', 'ana@example.com'],
      company: 42,
    }, ws.key);

    const issues = issuesByPath(res, 'contacts.create');
    expect(Object.keys(issues).sort()).toEqual(['company', 'emails.0', 'name', 'phones.0', 'phones.2']);
    expect(issues.company).toBe('expected text of at most 200 characters, got the number 42');
    expect(await rowCounts(ctx.db, ws.org.id)).toEqual(before);
  });
});

describe('POST clients.create with several bad fields', () => {
  it('answers a bad phone, a bad email and an unknown contact in one 400, writing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const before = await rowCounts(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'clients.create', { name: unique('Client'), phone: '123', email: 'nope', contactId: 'con_nothingHere000000000000' }, ws.key);

    expect(Object.keys(issuesByPath(res, 'clients.create')).sort()).toEqual(['contactId', 'email', 'phone']);
    expect(await rowCounts(ctx.db, ws.org.id)).toEqual(before);
  });
});

describe('POST tasks.create with several bad fields', () => {
  it('answers an empty title, a bad date and every reference naming no record of the workspace in one 400', async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const theirClient = await createClient(ctx.db, theirs.org.id);
    const before = await rowCounts(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'tasks.create', {
      title: '',
      dueAt: '2026-12-03 10:00',
      leadId: MISSING_LEAD,
      clientId: theirClient.id,
      assignedToId: theirs.member.id,
    }, ws.key);

    expect(issuesByPath(res, 'tasks.create')).toEqual({
      title: 'expected non-blank text of at most 500 characters, got empty text',
      dueAt: 'expected an ISO 8601 date-time with a time zone, e.g. 2026-12-03T10:00:00Z, got "2026-12-03 10:00"',
      leadId: `no lead ${JSON.stringify(MISSING_LEAD)} in this workspace`,
      clientId: `no client ${JSON.stringify(theirClient.id)} in this workspace`,
      assignedToId: `no member ${JSON.stringify(theirs.member.id)} in this workspace`,
    });
    expect(await rowCounts(ctx.db, ws.org.id)).toEqual(before);
  });

  it('answers 404 naming every reference when the references are the only problem (the contract\'s code for a missing record)', async () => {
    const ws = await createWorkspace(ctx.db);
    const before = await rowCounts(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'tasks.create', { title: 'Call back', leadId: MISSING_LEAD, assignedToId: MISSING_MEMBER }, ws.key);

    const { message, issues } = expectRpcFailure(res, 'NOT_FOUND', 'tasks.create');
    expect(message).toBe(`leadId: no lead ${JSON.stringify(MISSING_LEAD)} in this workspace; assignedToId: no member ${JSON.stringify(MISSING_MEMBER)} in this workspace`);
    expect(issues!.map((issue) => issue.path)).toEqual([['leadId'], ['assignedToId']]);
    expect(await rowCounts(ctx.db, ws.org.id)).toEqual(before);
  });
});

describe('POST invoices.create with several bad fields', () => {
  it('answers the client, currency, date and every bad line field in one 400, writing no invoice and no line', async () => {
    const ws = await createWorkspace(ctx.db);
    const before = await rowCounts(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'invoices.create', {
      clientId: MISSING_CLIENT,
      currency: 'pounds',
      dueDate: '31/01/2030',
      items: [{ description: 'Consulting', quantity: 1, unitPrice: 1999 }, { description: '', quantity: 0, unitPrice: 19.99 }],
    }, ws.key);

    expect(issuesByPath(res, 'invoices.create')).toEqual({
      clientId: `no client ${JSON.stringify(MISSING_CLIENT)} in this workspace`,
      currency: 'expected an ISO 4217 currency code in capitals, e.g. GBP, got "pounds"',
      dueDate: 'expected an ISO 8601 date, e.g. 2030-01-31, or a date-time with a time zone, e.g. 2030-01-31T00:00:00Z, got "31/01/2030"',
      'items.1.description': 'expected non-blank text of at most 500 characters, got empty text',
      'items.1.quantity': 'expected a whole number from 1 to 10000, got the number 0',
      'items.1.unitPrice': 'expected a whole number of minor units from 0 to 1000000000 (e.g. 1999 for 19.99), got the number 19.99',
    });
    expect(await rowCounts(ctx.db, ws.org.id)).toEqual(before);
  });

  it('writes the invoice once every problem is fixed (the same call, corrected)', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, ws.org.id);
    const res = await rpcPost(ctx.app, 'invoices.create', {
      clientId: client.id, currency: 'GBP', dueDate: '2030-01-31', items: [{ description: 'Consulting', quantity: 1, unitPrice: 1999 }],
    }, ws.key);
    expect(res.status).toBe(200);
    expect((await rowCounts(ctx.db, ws.org.id))[TABLES.invoices]).toBe(1);
  });
});
