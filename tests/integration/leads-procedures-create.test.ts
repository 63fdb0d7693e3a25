import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey, createMember, createWorkspace, unique } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { LEAD_FIELDS, countRows, expectRpcFailure, issuePaths, storedContact, storedLead } from '../helpers/leads-procedures-helpers';

const ctx = createTestContext();
afterAll(() => ctx.close());

function create(key: string, input: unknown) {
  return rpcPost(ctx.app, 'leads.create', input, key);
}

describe('POST leads.create (success and what is stored)', () => {
  it('creates a lead from {name, phone} as NOT_CONTACTED with the 17 fields, nulls explicit, and stores lead and contact', async () => {
    const ws = await createWorkspace(ctx.db);
    const name = unique('Ada');
    const res = await create(ws.key, { name, phone: '+442079460018' });
    expect(res.status).toBe(200);
    const json = res.body.result.data.json;
    expect(Object.keys(json).sort()).toEqual([...LEAD_FIELDS]);
    const lead = resultOf(res);
    expect(lead).toEqual({
      id: expect.stringMatching(/^lead_/),
      name,
      phones: ['+442079460018'],
      emails: [],
      primaryPhone: '+442079460018',
      primaryEmail: null,
      contactId: expect.stringMatching(/^con_/),
      company: null,
      source: null,
      status: 'NOT_CONTACTED',
      notes: null,
      nextCallAt: null,
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
      assignedToId: null,
      clientId: null,
      externalId: null,
    });
    for (const field of ['primaryEmail', 'company', 'source', 'notes', 'nextCallAt', 'assignedToId', 'clientId', 'externalId']) {
      expect(json[field]).toBeNull();
    }
    const row = await storedLead(ctx.db, ws.org.id, lead.id);
    expect(row).toMatchObject({
      org_id: ws.org.id, contact_id: lead.contactId, status: 'NOT_CONTACTED',
      source: null, notes: null, next_call_at: null, assigned_to_id: null, client_id: null,
    });
    expect(row.created_at).toEqual(lead.createdAt);
    const contact = await storedContact(ctx.db, ws.org.id, lead.contactId);
    expect(contact).toMatchObject({ org_id: ws.org.id, name, phones: ['+442079460018'], emails: [], company: null });
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 1, contacts: 1 });
  });

  it("answers exactly what leads.getById reads back, every field given, with the contact's timestamps", async () => {
    // The lead is built in the handler and written in its events' statement, never read back.
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const res = await create(ws.key, {
      name: unique('Grace'), phone: '+442079460019', phones: ['+442079460020'], email: 'Grace@Example.com', emails: ['g2@example.com'],
      company: 'Navy', source: 'referral', notes: 'met at a talk', status: 'QUALIFIED',
      nextCallAt: '2031-02-03T04:05:06.789Z', assignedToId: member.id,
    });
    expect(res.status).toBe(200);
    const read = await request(ctx.app)
      .get(`/api/v1/rpc/leads.getById?input=${encodeURIComponent(JSON.stringify({ json: { id: resultOf(res).id } }))}`)
      .set('Authorization', `Bearer ${ws.key}`);
    expect(read.status).toBe(200);
    expect(res.body).toEqual(read.body);
    const lead = resultOf(res);
    const contact = await storedContact(ctx.db, ws.org.id, lead.contactId);
    expect([lead.createdAt, lead.updatedAt]).toEqual([contact.created_at, contact.created_at]);
  });

  it.each([
    ['US', '(201) 555-0123', '+12015550123'],
    ['GB', '020 7946 0018', '+442079460018'],
    ['US', '+44 20 7946 0018', '+442079460018'],
    ['GB', '+1 201-555-0123', '+12015550123'],
  ])('in a %s workspace reads %j as %s (country code wins over the region)', async (region, phone, e164) => {
    const ws = await createWorkspace(ctx.db, { region });
    const res = await create(ws.key, { name: unique('Lee'), phone });
    expect(res.status).toBe(200);
    const lead = resultOf(res);
    expect([lead.phones, lead.primaryPhone]).toEqual([[e164], e164]);
    expect((await storedContact(ctx.db, ws.org.id, lead.contactId)).phones).toEqual([e164]);
  });

  it('answers 400 on a national number that is not valid in the workspace region (GB number in a US workspace)', async () => {
    const ws = await createWorkspace(ctx.db, { region: 'US' });
    const res = await create(ws.key, { name: unique('Lee'), phone: '020 7946 0018' });
    const { message } = expectRpcFailure(res, 'BAD_REQUEST', 'leads.create');
    expect(message).toBe('Invalid input: phone: expected a phone number in E.164, e.g. +12015550123, or in the national format of region US, e.g. (201) 555-0123, got "020 7946 0018"');
    expect(issuePaths(res)).toEqual([['phone']]);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it('normalises and de-duplicates phones keeping the primary first, and merges email + emails trimmed, lowercased, unique', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, {
      name: unique('Bo'),
      phone: '020 7946 0018',
      phones: ['+44 20 7946 0019', '+442079460018', '02079460019'],
      email: '  Ana@Example.COM ',
      emails: ['ana@example.com', ' BOB@Example.com', 'bob@example.com'],
    });
    expect(res.status).toBe(200);
    const lead = resultOf(res);
    expect(lead).toMatchObject({
      phones: ['+442079460018', '+442079460019'],
      primaryPhone: '+442079460018',
      emails: ['ana@example.com', 'bob@example.com'],
      primaryEmail: 'ana@example.com',
    });
    const contact = await storedContact(ctx.db, ws.org.id, lead.contactId);
    expect([contact.phones, contact.emails]).toEqual([['+442079460018', '+442079460019'], ['ana@example.com', 'bob@example.com']]);
  });

  it('stores every optional field and answers nextCallAt as the same Date to the millisecond', async () => {
    const ws = await createWorkspace(ctx.db);
    const at = new Date('2030-01-02T03:04:05.678Z');
    const input = {
      name: unique('Cy'), phone: '+442079460018', emails: ['cy@example.com'],
      company: 'Acme Ltd', source: 'web form', notes: 'call after 5', status: 'QUALIFIED', nextCallAt: at, assignedToId: ws.member.id,
    };
    const res = await create(ws.key, input);
    expect(res.status).toBe(200);
    expect(res.body.result.data.meta.values.nextCallAt).toEqual(['Date']);
    const lead = resultOf(res);
    expect(lead).toMatchObject({ company: 'Acme Ltd', source: 'web form', notes: 'call after 5', status: 'QUALIFIED', assignedToId: ws.member.id });
    expect(lead.nextCallAt).toBeInstanceOf(Date);
    expect(lead.nextCallAt.getTime()).toBe(at.getTime());
    const row = await storedLead(ctx.db, ws.org.id, lead.id);
    expect(row).toMatchObject({ source: 'web form', notes: 'call after 5', status: 'QUALIFIED', assigned_to_id: ws.member.id });
    expect(row.next_call_at.getTime()).toBe(at.getTime());
    expect((await storedContact(ctx.db, ws.org.id, lead.contactId)).company).toBe('Acme Ltd');
  });

  it('accepts nextCallAt as an ISO string with an offset (plain-JSON clients) and answers the same instant', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, { name: unique('Di'), phone: '+442079460018', nextCallAt: '2030-01-02T04:04:05.678+01:00' });
    expect(res.status).toBe(200);
    expect(resultOf(res).nextCallAt).toEqual(new Date('2030-01-02T03:04:05.678Z'));
  });

  it('accepts an assignedToId naming a member of the same workspace', async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createMember(ctx.db, ws.org.id);
    const res = await create(ws.key, { name: unique('Ed'), phone: '+442079460018', assignedToId: other.id });
    expect(res.status).toBe(200);
    const lead = resultOf(res);
    expect(lead.assignedToId).toBe(other.id);
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).assigned_to_id).toBe(other.id);
  });
});

describe('POST leads.create (refusals write nothing)', () => {
  it('answers 404 naming assignedToId when the member belongs to another workspace, writing no lead or contact', async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const before = await countRows(ctx.db, ws.org.id);
    const res = await create(ws.key, { name: unique('Fi'), phone: '+442079460018', assignedToId: theirs.member.id });
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'leads.create');
    expect(message).toBe(`assignedToId: no member ${JSON.stringify(theirs.member.id)} in this workspace`);
    expect(await countRows(ctx.db, ws.org.id)).toEqual(before);
    expect(await countRows(ctx.db, theirs.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it('answers 403 naming leads.create when the key lacks it, writing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read', 'leads.update', 'leads.delete'] });
    const res = await create(key, { name: unique('Gu'), phone: '+442079460018' });
    const { message } = expectRpcFailure(res, 'FORBIDDEN', 'leads.create');
    expect(message).toBe('missing scope: leads.create');
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it.each([
    ['phone', { phone: 'not a phone' }, [['phone']]],
    ['phone too short', { phone: '12' }, [['phone']]],
    ['second extra phone', { phone: '+442079460018', phones: ['+442079460019', 'nope'] }, [['phones', 1]]],
    ['every bad phone', { phone: 'x', phones: ['y', '+442079460019'] }, [['phone'], ['phones', 0]]],
  ])('answers 400 with the field issues when the %s cannot be read', async (_label, phones, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, { name: unique('Ha'), ...phones });
    const { message, issues } = expectRpcFailure(res, 'BAD_REQUEST', 'leads.create');
    expect(message).toMatch(/^Invalid input: .*expected a phone number in E\.164/);
    expect(issuePaths(res)).toEqual(paths);
    for (const issue of issues!) {
      expect(issue.message).toMatch(/^expected a phone number in E\.164, e\.g\. \+447400123456, or in the national format of region GB, e\.g\. 07400 123456, got "/);
    }
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it.each([
    ['a missing name', { phone: '+442079460018' }, ['name']],
    ['a blank name', { name: '   ', phone: '+442079460018' }, ['name']],
    ['a missing phone', { name: 'Ivy' }, ['phone']],
    ['a blank phone', { name: 'Ivy', phone: ' ' }, ['phone']],
    ['a number as name', { name: 42, phone: '+442079460018' }, ['name']],
    ['a string as phones', { name: 'Ivy', phone: '+442079460018', phones: '+442079460019' }, ['phones']],
    ['an invalid email', { name: 'Ivy', phone: '+442079460018', email: 'not-an-email' }, ['email']],
    ['an invalid email in emails', { name: 'Ivy', phone: '+442079460018', emails: ['a@example.com', 'nope'] }, ['emails', 1]],
    ['an unknown status', { name: 'Ivy', phone: '+442079460018', status: 'WARM' }, ['status']],
    ['the status CONVERTED', { name: 'Ivy', phone: '+442079460018', status: 'CONVERTED' }, ['status']],
    ['a nextCallAt that is no date', { name: 'Ivy', phone: '+442079460018', nextCallAt: 'tomorrow' }, ['nextCallAt']],
    ['an unknown key (strict input)', { name: 'Ivy', phone: '+442079460018', priority: 'high' }, ['priority']],
    ['a NUL character in name', { name: 'Iv\u0000y', phone: '+442079460018' }, ['name']],
    ['a NUL character in phone', { name: 'Ivy', phone: '+44207946\u00000018' }, ['phone']],
    ['a NUL character in company', { name: 'Ivy', phone: '+442079460018', company: 'Ac\u0000me' }, ['company']],
    ['a NUL character in source', { name: 'Ivy', phone: '+442079460018', source: '\u0000' }, ['source']],
    ['a NUL character in notes', { name: 'Ivy', phone: '+442079460018', notes: 'a\u0000b' }, ['notes']],
    ['a NUL character in email', { name: 'Ivy', phone: '+442079460018', email: 'i\u0000vy@example.com' }, ['email']],
  ])('answers 400 naming the field for %s, writing nothing', async (_label, input, path) => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, input);
    const { message } = expectRpcFailure(res, 'BAD_REQUEST', 'leads.create');
    expect(message).toMatch(/^Invalid input: /);
    expect(issuePaths(res)).toEqual([path]);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it('answers 400 naming nextCallAt when the envelope carries an Invalid Date', async () => {
    const ws = await createWorkspace(ctx.db);
    const body = { json: { name: 'Ivy', phone: '+442079460018', nextCallAt: 'not a date' }, meta: { values: { nextCallAt: ['Date'] }, v: 1 } };
    const res = await request(ctx.app)
      .post('/api/v1/rpc/leads.create')
      .set('Authorization', `Bearer ${ws.key}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body));
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.create');
    expect(issuePaths(res)).toEqual([['nextCallAt']]);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it('names the unknown key in the message of a strict-input refusal', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await create(ws.key, { name: 'Ivy', phone: '+442079460018', priority: 'high' });
    const { message } = expectRpcFailure(res, 'BAD_REQUEST', 'leads.create');
    expect(message).toBe('Invalid input: priority: unknown field; expected only the fields name, phone, email, phones, emails, company, source, notes, status, nextCallAt, assignedToId, externalId');
  });
});
