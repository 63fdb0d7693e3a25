import { createTestContext, createTestDb } from '../helpers/test-app';
import { createWorkspace, createMember, createLead } from '../helpers/factories';
import { bodyOf, listLeads } from '../helpers/leads-rest';
import { rpcPost } from '../helpers/rpc';
import { bulkInsert, changeLead, expectTotalsExact, idsWhere, removeLead, STATUSES } from '../helpers/lead-totals';
import type { Db } from '../../src/db/knex';
import * as leads from '../../src/db/leads';
import type { LeadFields } from '../../src/db/leads';
import { foldCounterShards, foldAllCounterShards, foldEndedSessions, startCounterFolding } from '../../src/db/leads/counters';
import type { LeadStatus } from '../../src/domain/lead-status';
import { createLogger } from '../../src/logger';
import { startPeriodicJob } from '../../src/server/periodic-job';
import { until } from '../helpers/poll';

// How the totals' counters are kept (src/db/leads/counters.ts, behind the leads entry point): a
// row per database session and group, updated in place while the session is open, folded into
// one by the periodic job once it has ended. The totals themselves
// are checked through HTTP by tests/integration/leads-list-totals.test.ts.

const ctx = createTestContext();
afterAll(() => ctx.close());

/** The workspace's counter rows per (status, assignee): how many, and their sum. */
async function counterGroups(db: Db, orgId: string): Promise<{ key: string; rows: number; sum: number }[]> {
  const rows = await db('lead_counts').where('org_id', orgId)
    .select('status', 'assignee_key').count({ rows: '*' }).sum({ sum: 'n' })
    .groupBy('status', 'assignee_key').orderBy(['status', 'assignee_key']);
  return rows.map((r: any) => ({ key: `${r.status}/${r.assignee_key}`, rows: Number(r.rows), sum: Number(r.sum) }));
}

/** Three database sessions: this file's pool and two of one connection each (a write's counter rows are its session's). */
let sessions: Db[];
beforeAll(() => {
  sessions = [ctx.db, createTestDb(1), createTestDb(1)];
});
afterAll(() => Promise.all(sessions.slice(1).map((db) => db.destroy())));

describe('the leads counters (lead_counts) behind the totals', () => {
  it('folds each counter group into one row and drops groups that sum to zero, every total still exact', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    // Inserts from three sessions: each adds to its own row of each group.
    for (let i = 0; i < 24; i += 1) await bulkInsert(sessions[i % 3]!, ws.org.id, `f${i}_`, 3, i % 2 ? member.id : null);
    // The member's LOST group then sums to zero over several rows.
    for (const id of await idsWhere(ctx.db, ws.org.id, (q) => q.where({ assigned_to_id: member.id, status: 'LOST' }))) {
      await changeLead(ctx.db, ws.org.id, id, { status: 'CONTACTED' });
    }
    const before = await counterGroups(ctx.db, ws.org.id);
    expect(before.some((g) => g.rows > 1)).toBe(true);
    // A row per session and group, not per write: 24 inserts, 3 sessions (the changes ran on ctx.db's pool).
    expect(before.filter((g) => g.rows > 3 + 5)).toEqual([]);
    expect(before.find((g) => g.key === `LOST/${member.id}`)).toMatchObject({ sum: 0 });

    await foldAllCounterShards(ctx.db);

    const after = await counterGroups(ctx.db, ws.org.id);
    expect(after).toEqual(before.filter((g) => g.sum !== 0).map((g) => ({ ...g, rows: 1 })));
    await expectTotalsExact(ctx.app, ctx.db, ws, [member.id]);
  });

  it("is folded by the service's periodic job, at its start, once the sessions that wrote have ended", async () => {
    const ws = await createWorkspace(ctx.db);
    const ended = [createTestDb(1), createTestDb(1)];
    for (let i = 0; i < 12; i += 1) await bulkInsert(ended[i % 2]!, ws.org.id, `j${i}_`, 1, null);
    await Promise.all(ended.map((db) => db.destroy()));
    expect((await counterGroups(ctx.db, ws.org.id)).some((g) => g.rows > 1)).toBe(true);

    const job = startCounterFolding({ db: ctx.db, logger: createLogger('silent'), startJob: startPeriodicJob });
    try {
      // The run at start folds every workspace with counters of ended sessions, one after another
      // (a backend may still be exiting then: a later run folds it).
      expect(await until(async () => (await counterGroups(ctx.db, ws.org.id)).every((g) => g.rows === 1), 10_000)).toBe(true);
    } finally {
      await job.stop(); // waits for the run in progress
    }
    await expectTotalsExact(ctx.app, ctx.db, ws, []);
  });

  it('leaves the rows of open sessions in place and folds those of ended ones, every total exact', async () => {
    const ws = await createWorkspace(ctx.db);
    const open = createTestDb(1);
    const ended = createTestDb(1);
    try {
      for (let i = 0; i < 6; i += 1) await bulkInsert(i % 2 ? open : ended, ws.org.id, `o${i}_`, 2, null);
      const openShard = Number((await open.raw('select pg_backend_pid() as pid')).rows[0].pid);
      await ended.destroy();
      /** The shards the workspace's counter rows belong to. */
      const shardsOf = async () => [...new Set((await ctx.db('lead_counts').where('org_id', ws.org.id).pluck('shard')).map(Number))].sort((a, b) => a - b);
      expect(await until(async () => {
        await foldEndedSessions(ctx.db);
        return (await shardsOf()).join() === `0,${openShard}`;
      }, 10_000)).toBe(true);
      await expectTotalsExact(ctx.app, ctx.db, ws, []);

      // The open session's next writes update its row in place, and a fold leaves it there.
      for (let i = 0; i < 3; i += 1) await bulkInsert(open, ws.org.id, `p${i}_`, 1, null);
      await foldEndedSessions(ctx.db);
      expect(await shardsOf()).toEqual([0, openShard]);
      await expectTotalsExact(ctx.app, ctx.db, ws, []);
    } finally {
      await open.destroy();
    }
  });

  it('keeps totals exact while shards are folded during concurrent writes, without a deadlock', async () => {
    const db = createTestDb(12);
    try {
      const ws = await createWorkspace(db);
      const members = [(await createMember(db, ws.org.id)).id, (await createMember(db, ws.org.id)).id];
      await Promise.all([0, 1].map((i) => bulkInsert(db, ws.org.id, `k${i}_`, 50, i % 2 ? members[0]! : null)));
      const ids: string[] = (await db('leads').where('org_id', ws.org.id).select('id')).map((r: { id: string }) => r.id);
      let writing = true;
      let folds = 0;
      const folding = (async () => {
        while (writing) folds += Math.sign(await foldCounterShards(db, ws.org.id));
      })();

      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 60; i += 1) {
        writes.push(bulkInsert(db, ws.org.id, `w${i}_`, 2, members[i % 2]!));
        writes.push(changeLead(db, ws.org.id, ids[i]!, { status: STATUSES[i % 3]!, assignedToId: i % 3 === 0 ? null : members[i % 2]! }));
        if (i % 4 === 0) writes.push(removeLead(db, ws.org.id, ids[99 - i]!));
      }
      await Promise.all(writes);
      writing = false;
      await folding;
      await expectTotalsExact(ctx.app, db, ws, members);
      await foldAllCounterShards(db);

      expect(folds).toBeGreaterThan(0);
      expect((await counterGroups(db, ws.org.id)).every((g) => g.rows === 1 && g.sum > 0)).toBe(true);
      await expectTotalsExact(ctx.app, db, ws, members);
    } finally {
      await db.destroy();
    }
  });

  it('spreads concurrent writes over more than one shard of a group', async () => {
    const db = createTestDb(12);
    try {
      const ws = await createWorkspace(db);
      // Four transactions open at once hold four sessions (four writes merely started together may
      // all run on one connection, each handed the one the last released).
      const trxs = await Promise.all([0, 1, 2, 3].map(() => db.transaction()));
      await Promise.all(trxs.map((trx, i) => bulkInsert(trx, ws.org.id, `s${i}_`, 20, null)));
      await Promise.all(trxs.map((trx) => trx.commit()));
      const shards = await db('lead_counts').where('org_id', ws.org.id).countDistinct<{ n: string }[]>({ n: 'shard' });
      expect(Number(shards[0]!.n)).toBeGreaterThan(1);
    } finally {
      await db.destroy();
    }
  });
});
