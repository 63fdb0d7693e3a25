import { createTestContext, createTestDb } from '../helpers/test-app';
import { createWorkspace, createMember, createLead } from '../helpers/factories';
import { bodyOf, listLeads } from '../helpers/leads-rest';
import { rpcPost } from '../helpers/rpc';
import { bulkInsert, changeLead, expectTotalsExact, idsWhere, removeLead, STATUSES } from '../helpers/lead-totals';
import type { Db } from '../../src/db/knex';
import * as leads from '../../src/db/leads';
import type { LeadFields } from '../../src/db/leads';
import type { LeadStatus } from '../../src/domain/lead-status';

const ctx = createTestContext();
afterAll(() => ctx.close());

describe('GET /api/v1/leads totals from the counters', () => {
  it('answers exact totals for every filter after bulk inserts, multi-row updates, reassignments and deletes', async () => {
    const ws = await createWorkspace(ctx.db);
    const [a, b] = [await createMember(ctx.db, ws.org.id), await createMember(ctx.db, ws.org.id)];
    await bulkInsert(ctx.db, ws.org.id, 'ta', 40, a.id);
    await bulkInsert(ctx.db, ws.org.id, 'tn', 25, null);
    await expectTotalsExact(ctx.app, ctx.db, ws, [a.id, b.id]);

    for (const id of await idsWhere(ctx.db, ws.org.id, (q) => q.where({ assigned_to_id: a.id, status: 'LOST' }))) {
      await changeLead(ctx.db, ws.org.id, id, { assignedToId: b.id });
    }
    for (const id of await idsWhere(ctx.db, ws.org.id, (q) => q.where({ status: 'NOT_CONTACTED' }).whereNull('assigned_to_id'))) {
      await changeLead(ctx.db, ws.org.id, id, { status: 'CONTACTED' });
    }
    for (const id of ['lead_ta1', 'lead_ta2', 'lead_tn3']) await removeLead(ctx.db, ws.org.id, id);
    for (const id of await idsWhere(ctx.db, ws.org.id, () => {})) await changeLead(ctx.db, ws.org.id, id, { notes: 'no count changes' });
    await expectTotalsExact(ctx.app, ctx.db, ws, [a.id, b.id]);
  });

  it('keeps totals exact through the API: create, update status, assign, unassign, log a call, convert, delete', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = ws.member.id;
    const created = await rpcPost(ctx.app, 'leads.create', { name: 'Ana', phone: '+442079460001', status: 'CONTACTED' }, ws.key);
    const id = created.body.result.data.json.id as string;
    await createLead(ctx.db, ws.org.id, { status: 'LOST', assignedToId: member });
    await expectTotalsExact(ctx.app, ctx.db, ws, [member]);

    const steps: [string, unknown][] = [
      ['leads.assign', { id, assignedToId: member }],
      ['leads.update', { id, status: 'LOST' }],
      ['leads.update', { id, status: 'QUALIFIED', assignedToId: null }],
      ['leads.assign', { id, assignedToId: member }],
      ['leads.update', { id, notes: 'no count changes' }],
      ['leads.logCall', { id, outcome: 'NO_ANSWER' }],
      ['leads.assign', { id, assignedToId: null }],
      ['leads.convert', { id }],
      ['leads.delete', { id }],
    ];
    for (const [name, input] of steps) {
      expect([name, (await rpcPost(ctx.app, name, input, ws.key)).status]).toEqual([name, 200]);
      await expectTotalsExact(ctx.app, ctx.db, ws, [member]);
    }
  });

  it('counts only the matching leads when search is given (count of the search, not the counters)', async () => {
    const ws = await createWorkspace(ctx.db);
    await bulkInsert(ctx.db, ws.org.id, 'sr', 20, null);

    const res = await listLeads(ctx.app, ws.key, { search: 'P1', status: 'CONTACTED' });

    // P1, P10..P19 (11 names); CONTACTED is g % 3 = 1: 1, 10, 13, 16, 19.
    expect(bodyOf(res).pagination.total).toBe(5);
  });

  // A search's last page tells its total without a count; every other page must count.
  it.each([
    ['a full page with more after it', { page: 1, pageSize: 4 }, 4],
    ['the last page, partly filled', { page: 3, pageSize: 4 }, 3],
    ['a page exactly filled with none after it', { page: 1, pageSize: 11 }, 11],
    ['a page past the end', { page: 5, pageSize: 4 }, 0],
    ['the only page, with room to spare', { page: 1, pageSize: 100 }, 11],
  ])('answers the exact total of a search on %s', async (_label, position, onPage) => {
    const ws = await createWorkspace(ctx.db);
    await bulkInsert(ctx.db, ws.org.id, 'sp', 20, null);

    // P1 and P10..P19: 11 matches.
    const res = await listLeads(ctx.app, ws.key, { search: 'P1', ...position });

    expect(res.status).toBe(200);
    expect({ total: bodyOf(res).pagination.total, onPage: bodyOf(res).data.length }).toEqual({ total: 11, onPage });
  });

  it('answers the exact total of a search reached by cursor', async () => {
    const ws = await createWorkspace(ctx.db);
    await bulkInsert(ctx.db, ws.org.id, 'sc', 20, null);
    const first = await listLeads(ctx.app, ws.key, { search: 'P1', pageSize: 8 });

    const second = await listLeads(ctx.app, ws.key, { search: 'P1', pageSize: 8, cursor: bodyOf(first).pagination.nextCursor! });

    expect({ total: bodyOf(second).pagination.total, onPage: bodyOf(second).data.length }).toEqual({ total: 11, onPage: 3 });
  });
});

describe('GET /api/v1/leads totals under concurrent writes', () => {
  it('answers totals equal to count(*) for every filter after concurrent creates, status changes, reassignments and deletes', async () => {
    const db = createTestDb(12);
    try {
      const ws = await createWorkspace(db);
      const members = [(await createMember(db, ws.org.id)).id, (await createMember(db, ws.org.id)).id];
      await Promise.all([0, 1, 2, 3].map((i) => bulkInsert(db, ws.org.id, `c${i}_`, 50, i % 2 ? members[0]! : null)));
      const ids: string[] = (await db('leads').where('org_id', ws.org.id).select('id')).map((r: { id: string }) => r.id);

      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 60; i += 1) {
        const id = ids[i]!;
        const other = ids[ids.length - 1 - i]!;
        writes.push(bulkInsert(db, ws.org.id, `n${i}_`, 3, members[i % 2]!));
        writes.push(changeLead(db, ws.org.id, id, { status: STATUSES[i % 3]! }));
        writes.push(changeLead(db, ws.org.id, other, { assignedToId: i % 3 === 0 ? null : members[i % 2]! }));
        if (i % 4 === 0) writes.push(removeLead(db, ws.org.id, ids[100 + i]!));
      }
      await Promise.all(writes);

      await expectTotalsExact(ctx.app, db, ws, members);
    } finally {
      await db.destroy();
    }
  });
});
