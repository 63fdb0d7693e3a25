import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createWorkspace, unique } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { LEAD_FIELDS, expectRpcFailure, issuePaths, snapshot, storedContact, storedLead } from '../helpers/leads-procedures-helpers';
import { LEAD_STATUSES } from '../../src/domain/lead-status';

const ctx = createTestContext();
afterAll(() => ctx.close());

const OPEN_STATUSES = LEAD_STATUSES.filter((s) => s !== 'CONVERTED');
const LONG_AGO = new Date('2020-01-01T00:00:00.000Z');

function update(key: string, input: unknown) {
  return rpcPost(ctx.app, 'leads.update', input, key);
}

/** A lead with every nullable field set, its updated_at moved into the past so an update visibly advances it. */
async function fullLead(ws: Awaited<ReturnType<typeof createWorkspace>>) {
  const lead = await createLead(ctx.db, ws.org.id, {
    name: unique('Full'), phones: ['+442079460018'], emails: ['full@example.com'], company: 'Acme',
    source: 'web', notes: 'first notes', nextCallAt: new Date('2030-03-04T05:06:07.089Z'), assignedToId: ws.member.id, status: 'CONTACTED',
  });
  await ctx.db('leads').where({ org_id: ws.org.id, id: lead.id }).update({ updated_at: LONG_AGO });
  return { ...lead, updatedAt: LONG_AGO };
}

describe('POST leads.update (fields)', () => {
  it('changes only the given field: absent fields stay, updatedAt advances, the 16 fields are answered', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await fullLead(ws);
    const res = await update(ws.key, { id: lead.id, notes: 'second notes' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...LEAD_FIELDS]);
    const answered = resultOf(res);
    expect(answered).toEqual({ ...lead, notes: 'second notes', updatedAt: expect.any(Date) });
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const row = await storedLead(ctx.db, ws.org.id, lead.id);
    expect(row).toMatchObject({ notes: 'second notes', source: 'web', status: 'CONTACTED', assigned_to_id: ws.member.id });
    expect(row.updated_at).toEqual(answered.updatedAt);
    expect(row.next_call_at).toEqual(lead.nextCallAt);
    expect(await storedContact(ctx.db, ws.org.id, lead.contactId)).toMatchObject({
      name: lead.name, phones: ['+442079460018'], emails: ['full@example.com'], company: 'Acme',
    });
  });

  it('clears company, source, notes, nextCallAt and assignedToId when sent as null', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await fullLead(ws);
    const res = await update(ws.key, { id: lead.id, company: null, source: null, notes: null, nextCallAt: null, assignedToId: null });
    expect(res.status).toBe(200);
    const json = res.body.result.data.json;
    expect([json.company, json.source, json.notes, json.nextCallAt, json.assignedToId]).toEqual([null, null, null, null, null]);
    expect(resultOf(res)).toMatchObject({ name: lead.name, phones: lead.phones, emails: lead.emails, status: 'CONTACTED' });
    const row = await storedLead(ctx.db, ws.org.id, lead.id);
    expect(row).toMatchObject({ source: null, notes: null, next_call_at: null, assigned_to_id: null, status: 'CONTACTED' });
    expect((await storedContact(ctx.db, ws.org.id, lead.contactId)).company).toBeNull();
  });

  it('replaces phones and emails with their normalised, de-duplicated values and renames the contact', async () => {
    const ws = await createWorkspace(ctx.db, { region: 'US' });
    const lead = await createLead(ctx.db, ws.org.id, { phones: ['+442079460018'], emails: ['old@example.com'] });
    const res = await update(ws.key, {
      id: lead.id, name: '  Renamed  ', phones: ['(201) 555-0123', '+1 201 555 0123', '+44 20 7946 0019'], emails: [' NEW@Example.com', 'new@example.com', 'two@example.com'],
    });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toMatchObject({
      name: 'Renamed', phones: ['+12015550123', '+442079460019'], primaryPhone: '+12015550123',
      emails: ['new@example.com', 'two@example.com'], primaryEmail: 'new@example.com',
    });
    expect(await storedContact(ctx.db, ws.org.id, lead.contactId)).toMatchObject({
      name: 'Renamed', phones: ['+12015550123', '+442079460019'], emails: ['new@example.com', 'two@example.com'],
    });
  });

  it('sets nextCallAt from a Date to the millisecond and assigns a member of the workspace', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const lead = await createLead(ctx.db, ws.org.id);
    const at = new Date('2031-12-31T23:59:59.999Z');
    const res = await update(ws.key, { id: lead.id, nextCallAt: at, assignedToId: member.id });
    expect(res.status).toBe(200);
    expect(resultOf(res)).toMatchObject({ nextCallAt: at, assignedToId: member.id });
    const row = await storedLead(ctx.db, ws.org.id, lead.id);
    expect([row.next_call_at.getTime(), row.assigned_to_id]).toEqual([at.getTime(), member.id]);
  });

  it.each([
    ['name set to null', { name: null }, ['name']],
    ['a blank name', { name: '  ' }, ['name']],
    ['phones set to null', { phones: null }, ['phones']],
    ['status set to null', { status: null }, ['status']],
    ['an unknown status', { status: 'WARM' }, ['status']],
    ['an unknown key', { priority: 'high' }, ['priority']],
    ['a NUL character in notes', { notes: 'a\u0000b' }, ['notes']],
    ['a bad email', { emails: ['ok@example.com', 'nope'] }, ['emails', 1]],
  ])('answers 400 naming the field for %s, changing nothing', async (_label, patch, path) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await fullLead(ws);
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await update(ws.key, { id: lead.id, ...patch });
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.update');
    expect(issuePaths(res)).toEqual([path]);
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });

  it('answers 400 on an unreadable phone and writes none of the other fields of the same update', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await fullLead(ws);
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await update(ws.key, {
      id: lead.id, name: 'Half Written', company: 'Other', notes: 'changed', status: 'LOST', phones: ['+442079460019', 'not a phone'],
    });
    const { message } = expectRpcFailure(res, 'BAD_REQUEST', 'leads.update');
    expect(message).toMatch(/phones\[1\]: expected a phone number in E\.164/);
    expect(issuePaths(res)).toEqual([['phones', 1]]);
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });

  it('answers 403 naming leads.update when the key lacks it, changing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await fullLead(ws);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read', 'leads.create'] });
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const { message } = expectRpcFailure(await update(key, { id: lead.id, notes: 'x' }), 'FORBIDDEN', 'leads.update');
    expect(message).toBe('missing scope: leads.update');
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });
});

describe('POST leads.update (other workspaces)', () => {
  it("answers 404 for another workspace's lead id and leaves that lead unchanged", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await fullLead(theirs);
    const before = await snapshot(ctx.db, theirs.org.id, lead.id);
    const res = await update(ws.key, { id: lead.id, name: 'Hijacked', notes: 'hijacked', status: 'LOST' });
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'leads.update');
    expect(message).toBe(`No lead ${JSON.stringify(lead.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(lead.name);
    expect(await snapshot(ctx.db, theirs.org.id, lead.id)).toEqual(before);
  });

  it('answers 404 for a lead id that does not exist', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcFailure(await update(ws.key, { id: 'lead_doesNotExist', notes: 'x' }), 'NOT_FOUND', 'leads.update');
  });

  it('answers 404 naming assignedToId for a member of another workspace and writes none of the update', async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await fullLead(ws);
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await update(ws.key, { id: lead.id, name: 'Half Written', notes: 'changed', assignedToId: theirs.member.id });
    const { message } = expectRpcFailure(res, 'NOT_FOUND', 'leads.update');
    expect(message).toBe(`assignedToId: no member ${JSON.stringify(theirs.member.id)} in this workspace`);
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });
});

describe('POST leads.update (status transitions)', () => {
  it.each(OPEN_STATUSES)('moves a %s lead to each status but CONVERTED (its own included) with 200', async (from) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { status: from });
    for (const to of OPEN_STATUSES) {
      const res = await update(ws.key, { id: lead.id, status: to });
      expect({ to, status: res.status, answered: res.body.result?.data?.json?.status }).toEqual({ to, status: 200, answered: to });
      expect((await storedLead(ctx.db, ws.org.id, lead.id)).status).toBe(to);
      await ctx.db('leads').where({ org_id: ws.org.id, id: lead.id }).update({ status: from });
    }
  });

  it.each(OPEN_STATUSES)('answers 409 CONFLICT naming %s and CONVERTED when the status is set to CONVERTED, writing nothing', async (from) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { status: from });
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await update(ws.key, { id: lead.id, status: 'CONVERTED', notes: 'converted by hand' });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'leads.update');
    expect(message).toMatch(new RegExp(`from ${from} to CONVERTED`));
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });

  it.each(OPEN_STATUSES)('answers 409 CONFLICT naming CONVERTED and %s when a CONVERTED lead is moved, writing nothing', async (to) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { status: 'CONVERTED' });
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await update(ws.key, { id: lead.id, status: to, name: 'Reopened' });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'leads.update');
    expect(message).toMatch(new RegExp(`from CONVERTED to ${to}`));
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });
});

describe('POST leads.update (concurrent calls on one lead)', () => {
  it('answers 200 to 10 concurrent status changes and leaves the whole write of exactly one call in the row', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await fullLead(ws);
    const sent = [...OPEN_STATUSES, 'QUALIFIED' as const].map((status, i) => ({ status, notes: `call ${i}` }));
    const responses = await Promise.all(sent.map((patch) => update(ws.key, { id: lead.id, ...patch })));
    expect(responses.map((r) => r.status)).toEqual(sent.map(() => 200));
    const answers = responses.map((r) => resultOf(r) as { status: string; notes: string; updatedAt: Date });
    answers.forEach((answer, i) => {
      expect({ status: answer.status, notes: answer.notes }).toEqual(sent[i]);
      expect(answer.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    });
    const row = await storedLead(ctx.db, ws.org.id, lead.id);
    // The notes say which call committed last; status and updated_at must be that same call's, never a mix.
    const writer = answers.find((a) => a.notes === row.notes);
    expect(writer).toBeDefined();
    expect({ status: row.status, updatedAt: row.updated_at.getTime() }).toEqual({ status: writer!.status, updatedAt: writer!.updatedAt.getTime() });
    expect(sent.map((p) => p.status)).toContain(row.status);
    // updatedAt only moves forward: every answer's is distinct, and the last writer's is the newest.
    const times = answers.map((a) => a.updatedAt.getTime());
    expect(new Set(times).size).toBe(times.length);
    expect(row.updated_at.getTime()).toBe(Math.max(...times));
    expect(row.updated_at.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    expect(await storedContact(ctx.db, ws.org.id, lead.contactId)).toMatchObject({ name: lead.name, phones: lead.phones });
  });
});
