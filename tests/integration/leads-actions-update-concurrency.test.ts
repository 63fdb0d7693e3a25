import { createTestContext } from '../helpers/test-app';
import { createLead, createWorkspace } from '../helpers/factories';
import { rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths, snapshot, storedLead } from '../helpers/leads-procedures-helpers';

const ctx = createTestContext();
afterAll(() => ctx.close());

const SEEN = new Date('2024-05-06T07:08:09.123Z');

function update(key: string, input: unknown) {
  return rpcPost(ctx.app, 'leads.update', input, key);
}

/** A lead whose updated_at is exactly SEEN, as a syncing client last read it. */
async function leadSeenAt(orgId: string) {
  const lead = await createLead(ctx.db, orgId, { notes: 'as seen' });
  await ctx.db('leads').where({ org_id: orgId, id: lead.id }).update({ updated_at: SEEN });
  return lead;
}

describe('POST leads.update (expectedUpdatedAt)', () => {
  it('writes the change when expectedUpdatedAt equals the stored updatedAt, and answers the new updatedAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadSeenAt(ws.org.id);
    const res = await update(ws.key, { id: lead.id, notes: 'synced', expectedUpdatedAt: SEEN });
    expect(res.status).toBe(200);
    const answered = resultOf(res);
    expect(answered.notes).toBe('synced');
    expect(answered.updatedAt.getTime()).toBeGreaterThan(SEEN.getTime());
    expect(await storedLead(ctx.db, ws.org.id, lead.id)).toMatchObject({ notes: 'synced', updated_at: answered.updatedAt });
  });

  it('accepts expectedUpdatedAt as an ISO string with a zone from a plain-JSON caller', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadSeenAt(ws.org.id);
    const res = await update(ws.key, { id: lead.id, notes: 'synced', expectedUpdatedAt: '2024-05-06T09:08:09.123+02:00' });
    expect(res.status).toBe(200);
  });

  it.each([
    ['a millisecond earlier', new Date(SEEN.getTime() - 1)],
    ['a millisecond later', new Date(SEEN.getTime() + 1)],
  ])('answers 409 CONFLICT and writes nothing when expectedUpdatedAt is %s than the stored one', async (_label, expected) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadSeenAt(ws.org.id);
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const res = await update(ws.key, { id: lead.id, name: 'Overwritten', notes: 'overwritten', status: 'LOST', expectedUpdatedAt: expected });
    const { message } = expectRpcFailure(res, 'CONFLICT', 'leads.update');
    expect(message).toBe(`The lead was changed at ${SEEN.toISOString()}, after the expected ${expected.toISOString()}: read it again and retry`);
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });

  it('answers 409 to the second of two writers that read the same updatedAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadSeenAt(ws.org.id);
    expect((await update(ws.key, { id: lead.id, notes: 'first', expectedUpdatedAt: SEEN })).status).toBe(200);
    expectRpcFailure(await update(ws.key, { id: lead.id, notes: 'second', expectedUpdatedAt: SEEN }), 'CONFLICT', 'leads.update');
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).notes).toBe('first');
  });

  it('answers 409 after another action (leads.logCall) changed the lead since it was read', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadSeenAt(ws.org.id);
    expect((await rpcPost(ctx.app, 'leads.logCall', { id: lead.id, outcome: 'BUSY' }, ws.key)).status).toBe(200);
    expectRpcFailure(await update(ws.key, { id: lead.id, status: 'LOST', expectedUpdatedAt: SEEN }), 'CONFLICT', 'leads.update');
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).status).toBe('BUSY');
  });

  it.each([
    ['a string without a zone', '2024-05-06T07:08:09.123'],
    ['a word', 'yesterday'],
    ['null', null],
  ])('answers 400 naming expectedUpdatedAt for %s', async (_label, value) => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadSeenAt(ws.org.id);
    const res = await update(ws.key, { id: lead.id, notes: 'x', expectedUpdatedAt: value });
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.update');
    expect(issuePaths(res)).toEqual([['expectedUpdatedAt']]);
  });

  it("answers 404, not 409, for another workspace's lead even with a stale expectedUpdatedAt", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const lead = await leadSeenAt(theirs.org.id);
    const before = await snapshot(ctx.db, theirs.org.id, lead.id);
    const res = await update(ws.key, { id: lead.id, notes: 'x', expectedUpdatedAt: new Date(0) });
    expectRpcFailure(res, 'NOT_FOUND', 'leads.update');
    expect(JSON.stringify(res.body)).not.toContain(SEEN.toISOString());
    expect(await snapshot(ctx.db, theirs.org.id, lead.id)).toEqual(before);
  });

  it('answers 409 naming CONVERTED to a status change on a lead converted by leads.convert, even with a fresh expectedUpdatedAt', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const converted = resultOf(await rpcPost(ctx.app, 'leads.convert', { id: lead.id }, ws.key));
    const res = await update(ws.key, { id: lead.id, status: 'QUALIFIED', expectedUpdatedAt: converted.lead.updatedAt });
    expect(expectRpcFailure(res, 'CONFLICT', 'leads.update').message).toMatch(/from CONVERTED to QUALIFIED/);
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).status).toBe('CONVERTED');
  });
});

describe('POST leads.update (expectedUpdatedAt, concurrent writers)', () => {
  it('lets exactly one of 8 concurrent writers with the same expectedUpdatedAt win; the others get 409', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await leadSeenAt(ws.org.id);
    const notes = Array.from({ length: 8 }, (_, i) => `writer ${i}`);
    const responses = await Promise.all(notes.map((n) => update(ws.key, { id: lead.id, notes: n, expectedUpdatedAt: SEEN })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    const winner = responses.findIndex((r) => r.status === 200);
    expect((await storedLead(ctx.db, ws.org.id, lead.id)).notes).toBe(notes[winner]);
  });
});
