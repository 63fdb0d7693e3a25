import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { LEAD_FIELDS, expectRpcFailure, issuePaths, snapshot, storedLead } from '../helpers/leads-procedures-helpers';
import { refuseWritesWhere, storedCalls } from '../helpers/leads-actions-fixtures';
import { CALL_OUTCOMES } from '../../src/domain/lead-status';

const ctx = createTestContext();
afterAll(() => ctx.close());

const LONG_AGO = new Date('2020-01-01T00:00:00.000Z');
const NEXT = new Date('2031-05-06T07:08:09.123Z');

function logCall(key: string, input: unknown) {
  return rpcPost(ctx.app, 'leads.logCall', input, key);
}

async function leadOf(orgId: string, overrides: Parameters<typeof createLead>[2] = {}) {
  const lead = await createLead(ctx.db, orgId, { nextCallAt: new Date('2030-01-01T09:00:00.000Z'), ...overrides });
  await ctx.db('leads').where({ org_id: orgId, id: lead.id }).update({ updated_at: LONG_AGO });
  return { ...lead, updatedAt: LONG_AGO };
}

describe('POST leads.logCall', () => {
  it('records the call and moves the lead to its outcome and next call, in one answer {call, lead}', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { notes: 'lead notes' });
    const res = await logCall(ws.key, { id: lead.id, outcome: 'NO_ANSWER', notes: 'rang twice', nextCallAt: NEXT });
    expect(res.status).toBe(200);
    const json = res.body.result.data.json;
    expect(Object.keys(json).sort()).toEqual(['call', 'lead']);
    expect(Object.keys(json.call).sort()).toEqual(['createdAt', 'id', 'leadId', 'loggedBy', 'nextCallAt', 'notes', 'outcome']);
    expect(Object.keys(json.lead).sort()).toEqual([...LEAD_FIELDS]);
    const { call, lead: answered } = resultOf(res);
    expect(call).toEqual({
      id: expect.stringMatching(/^call_[0-9A-Za-z]{22}$/), leadId: lead.id, outcome: 'NO_ANSWER', notes: 'rang twice',
      nextCallAt: NEXT, loggedBy: ws.keyId, createdAt: expect.any(Date),
    });
    expect(answered).toEqual({ ...lead, status: 'NO_ANSWER', nextCallAt: NEXT, updatedAt: expect.any(Date) });
    expect(answered.updatedAt.getTime()).toBeGreaterThan(LONG_AGO.getTime());
    const rows = await storedCalls(ctx.db, ws.org.id, lead.id);
    expect(rows).toEqual([{
      org_id: ws.org.id, id: call.id, lead_id: lead.id, outcome: 'NO_ANSWER', notes: 'rang twice', next_call_at: NEXT, logged_by: ws.keyId, created_at: call.createdAt,
    }]);
    expect(await storedLead(ctx.db, ws.org.id, lead.id)).toMatchObject({ status: 'NO_ANSWER', next_call_at: NEXT, notes: 'lead notes' });
  });

  it.each([
    ['absent', {}],
    ['null', { nextCallAt: null }],
  ])('clears the next call when nextCallAt is %s, and stores notes as null when absent', async (_label, extra) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const res = await logCall(ws.key, { id: lead.id, outcome: 'CONTACTED', ...extra });
    expect(res.status).toBe(200);
    expect(res.body.result.data.json.lead.nextCallAt).toBeNull();
    expect(res.body.result.data.json.call).toMatchObject({ notes: null, nextCallAt: null });
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).next_call_at).toBeNull();
    expect(await storedCalls(ctx.db, ws.org.id, lead.id)).toMatchObject([{ outcome: 'CONTACTED', notes: null, next_call_at: null }]);
  });

  it.each(CALL_OUTCOMES)('accepts the outcome %s from a LOST lead and sets it as the status', async (outcome) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { status: 'LOST' });
    const res = await logCall(ws.key, { id: lead.id, outcome });
    expect(res.status).toBe(200);
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).status).toBe(outcome);
    expect(await storedCalls(ctx.db, ws.org.id, lead.id)).toMatchObject([{ outcome }]);
  });

  it('accepts nextCallAt as an ISO string with a zone from a plain-JSON caller', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const res = await logCall(ws.key, { id: lead.id, outcome: 'BUSY', nextCallAt: '2031-05-06T09:08:09.123+02:00' });
    expect(res.status).toBe(200);
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).next_call_at).toEqual(NEXT);
  });

  it.each([
    ['no outcome', { }, [['outcome']]],
    ['QUALIFIED, a status but not a call outcome', { outcome: 'QUALIFIED' }, [['outcome']]],
    ['CONVERTED as the outcome', { outcome: 'CONVERTED' }, [['outcome']]],
    ['a NUL character in notes', { outcome: 'BUSY', notes: 'a\u0000b' }, [['notes']]],
    ['notes over 10000 characters', { outcome: 'BUSY', notes: 'x'.repeat(10_001) }, [['notes']]],
    ['a nextCallAt without a zone', { outcome: 'BUSY', nextCallAt: '2031-05-06T09:08:09' }, [['nextCallAt']]],
    ['an unknown key', { outcome: 'BUSY', status: 'LOST' }, [['status']]],
  ])('answers 400 for %s and records nothing', async (_label, fields, paths) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await logCall(ws.key, { id: lead.id, ...fields });
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.logCall');
    expect(issuePaths(res)).toEqual(paths);
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
    expect(await storedCalls(ctx.db, ws.org.id)).toEqual([]);
  });

  it('answers 403 naming leads.update when the key lacks it and records nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    const res = await logCall(key, { id: lead.id, outcome: 'BUSY' });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'leads.logCall').message).toBe('missing scope: leads.update');
    expect(await storedCalls(ctx.db, ws.org.id)).toEqual([]);
  });

  it("answers 404 for another workspace's lead: no call in either workspace, their lead unchanged", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await leadOf(theirs.org.id);
    const before = await snapshot(ctx.db, theirs.org.id, lead.id);
    const res = await logCall(ws.key, { id: lead.id, outcome: 'WRONG_NUMBER', nextCallAt: NEXT });
    expect(expectRpcFailure(res, 'NOT_FOUND', 'leads.logCall').message).toBe(`No lead ${JSON.stringify(lead.id)} in this workspace`);
    expect(await snapshot(ctx.db, theirs.org.id, lead.id)).toEqual(before);
    expect(await storedCalls(ctx.db, theirs.org.id)).toEqual([]);
    expect(await storedCalls(ctx.db, ws.org.id)).toEqual([]);
  });

  it.each(CALL_OUTCOMES)('answers 409 CONFLICT naming CONVERTED and %s on a CONVERTED lead, recording nothing', async (outcome) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id, { status: 'CONVERTED' });
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await logCall(ws.key, { id: lead.id, outcome, nextCallAt: NEXT });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'leads.logCall');
    expect(message).toMatch(new RegExp(`from CONVERTED to ${outcome}`));
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
    expect(await storedCalls(ctx.db, ws.org.id)).toEqual([]);
  });

  it('keeps no call when the lead cannot be written after the call was inserted (one transaction)', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadOf(ws.org.id);
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const cleanUp = await refuseWritesWhere(ctx.db, 'leads', 'id', lead.id);
    try {
      const res = await logCall(ws.key, { id: lead.id, outcome: 'BUSY', notes: 'half written' });
      expect(res.status).toBe(500);
    } finally {
      await cleanUp();
    }
    expect(await storedCalls(ctx.db, ws.org.id)).toEqual([]);
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });
});
