import { createTestContext } from '../helpers/test-app';
import { createLead, createWorkspace } from '../helpers/factories';
import { rpcGet, resultOf } from '../helpers/rpc';
import { FROM, TO, outcomes, seedDashboardWorkspace, statuses } from '../helpers/dashboard-fixtures';
import { insertCall } from '../helpers/leads-actions-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

function stats(key: string, input: unknown) {
  return rpcGet(ctx.app, 'dashboard.getLeadStats', input, key);
}

const day = (d: string, counts: Partial<Record<string, number>>) => ({
  day: d, total: Object.values(counts).reduce((a: number, b) => a + (b ?? 0), 0), byOutcome: outcomes(counts),
});

describe('GET dashboard.getLeadStats (exact numbers on a fixed dataset)', () => {
  let seeded: Awaited<ReturnType<typeof seedDashboardWorkspace>>;
  let neighbour: Awaited<ReturnType<typeof seedDashboardWorkspace>>;
  beforeAll(async () => {
    // Two workspaces with the same rows: each must see its own numbers, never the sum.
    seeded = await seedDashboardWorkspace(ctx.db);
    neighbour = await seedDashboardWorkspace(ctx.db);
  });

  it('counts statuses, assignees, calls per UTC day and outcome, and the conversion rate exactly', async () => {
    const res = await stats(seeded.key, { from: FROM, to: TO });
    expect(res.status).toBe(200);
    const { top, first, second } = seeded.members;
    expect(resultOf(res)).toEqual({
      range: { from: FROM, to: TO, timeZone: 'UTC' },
      byStatus: statuses({ NOT_CONTACTED: 1, CONTACTED: 1, QUALIFIED: 2, CONVERTED: 3, LOST: 1, BUSY: 1 }),
      byAssignee: [
        { assignedToId: top, count: 3 },
        { assignedToId: first, count: 2 },
        { assignedToId: second, count: 2 },
        { assignedToId: null, count: 2 },
      ],
      calls: {
        total: 5,
        byOutcome: outcomes({ CONTACTED: 1, NO_ANSWER: 1, BUSY: 2, WRONG_NUMBER: 1 }),
        perDay: [
          day('2026-03-01', { CONTACTED: 1, NO_ANSWER: 1 }),
          day('2026-03-02', { BUSY: 2 }),
          day('2026-03-03', { WRONG_NUMBER: 1 }),
        ],
      },
      // Created in [from, to): 3 leads (one exactly at from; one exactly at to is out). Converted in it: 2.
      conversion: { created: 3, converted: 2, rate: 0.6667 },
    });
  });

  it('puts calls on the calendar days of America/New_York, which differ from UTC days at the edges', async () => {
    const res = await stats(seeded.key, { from: FROM, to: TO, timeZone: 'America/New_York' });
    expect(res.status).toBe(200);
    const answered = resultOf(res);
    expect(answered.range).toEqual({ from: FROM, to: TO, timeZone: 'America/New_York' });
    expect(answered.calls).toEqual({
      total: 5,
      byOutcome: outcomes({ CONTACTED: 1, NO_ANSWER: 1, BUSY: 2, WRONG_NUMBER: 1 }),
      // 2026-03-01T00:00Z is 19:00 on 28 February in New York, so the range touches four local days;
      // 2026-03-02T04:59:59.999Z is still 1 March there, 05:00Z is 2 March.
      perDay: [
        day('2026-02-28', { CONTACTED: 1 }),
        day('2026-03-01', { NO_ANSWER: 1, BUSY: 1 }),
        day('2026-03-02', { BUSY: 1 }),
        day('2026-03-03', { WRONG_NUMBER: 1 }),
      ],
    });
    expect(answered.conversion).toEqual({ created: 3, converted: 2, rate: 0.6667 });
  });

  it('puts calls on the days of Asia/Tokyo (UTC+9), a range that ends on a fourth local day', async () => {
    const answered = resultOf(await stats(seeded.key, { from: FROM, to: TO, timeZone: 'Asia/Tokyo' }));
    expect(answered.calls.perDay).toEqual([
      day('2026-03-01', { CONTACTED: 1, NO_ANSWER: 1 }),
      day('2026-03-02', { BUSY: 2 }),
      day('2026-03-03', {}),
      day('2026-03-04', { WRONG_NUMBER: 1 }),
    ]);
  });

  it("counts only the caller's workspace: the neighbour sees its own, equal numbers", async () => {
    const mine = resultOf(await stats(seeded.key, { from: FROM, to: TO }));
    const theirs = resultOf(await stats(neighbour.key, { from: FROM, to: TO }));
    expect(theirs.byStatus).toEqual(mine.byStatus);
    expect(theirs.calls).toEqual(mine.calls);
    expect(theirs.conversion).toEqual(mine.conversion);
    const ids = (r: { byAssignee: { assignedToId: string | null }[] }) => r.byAssignee.map((a) => a.assignedToId);
    expect(ids(theirs)).toEqual([neighbour.members.top, neighbour.members.first, neighbour.members.second, null]);
    expect(ids(mine).filter((id) => ids(theirs).includes(id))).toEqual([null]);
  });

  it('answers zeros everywhere, an unassigned bucket of 0 and every day of the range for an empty workspace', async () => {
    const ws = await createWorkspace(ctx.db);
    expect(resultOf(await stats(ws.key, { from: FROM, to: TO }))).toEqual({
      range: { from: FROM, to: TO, timeZone: 'UTC' },
      byStatus: statuses(),
      byAssignee: [{ assignedToId: null, count: 0 }],
      calls: { total: 0, byOutcome: outcomes(), perDay: ['2026-03-01', '2026-03-02', '2026-03-03'].map((d) => day(d, {})) },
      conversion: { created: 0, converted: 0, rate: 0 },
    });
  });

  it('answers an empty perDay and zero counts for an empty range (from equal to to)', async () => {
    const answered = resultOf(await stats(seeded.key, { from: FROM, to: FROM }));
    expect(answered.calls).toEqual({ total: 0, byOutcome: outcomes(), perDay: [] });
    expect(answered.conversion).toEqual({ created: 0, converted: 0, rate: 0 });
    expect(answered.byStatus.CONVERTED).toBe(3);
  });
});

describe('GET dashboard.getLeadStats (default range)', () => {
  it('defaults to the 30 days ending now in UTC, counting a call of now and not one of 31 days ago', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const now = Date.now();
    await insertCall(ctx.db, ws.org.id, lead.id, 'BUSY', new Date(now - 60_000));
    await insertCall(ctx.db, ws.org.id, lead.id, 'CONTACTED', new Date(now - 31 * 86_400_000));
    const before = Date.now();
    const res = await stats(ws.key, undefined);
    expect(res.status).toBe(200);
    const answered = resultOf(res);
    expect(answered.range.timeZone).toBe('UTC');
    expect(answered.range.to.getTime()).toBeGreaterThanOrEqual(before);
    expect(answered.range.to.getTime()).toBeLessThanOrEqual(Date.now());
    expect(answered.range.to.getTime() - answered.range.from.getTime()).toBe(30 * 86_400_000);
    expect(answered.calls.total).toBe(1);
    expect(answered.calls.byOutcome).toEqual(outcomes({ BUSY: 1 }));
    const days = answered.calls.perDay.map((d: { day: string }) => d.day);
    expect(days[0]).toBe(answered.range.from.toISOString().slice(0, 10));
    expect(days[days.length - 1]).toBe(new Date(answered.range.to.getTime() - 1).toISOString().slice(0, 10));
    expect(days.length).toBeGreaterThanOrEqual(30);
    expect(days.length).toBeLessThanOrEqual(31);
    expect(answered.conversion).toEqual({ created: 1, converted: 0, rate: 0 });
  });

  it('defaults from to 30 days before a given to', async () => {
    const ws = await createWorkspace(ctx.db);
    const answered = resultOf(await stats(ws.key, { to: TO }));
    expect(answered.range).toEqual({ from: new Date(TO.getTime() - 30 * 86_400_000), to: TO, timeZone: 'UTC' });
    expect(answered.calls.perDay).toHaveLength(30);
  });
});
