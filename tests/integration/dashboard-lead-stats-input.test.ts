import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { FROM, TO } from '../helpers/dashboard-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

const DAY_MS = 86_400_000;

function stats(key: string, input: unknown) {
  return rpcGet(ctx.app, 'dashboard.getLeadStats', input, key);
}

describe('GET dashboard.getLeadStats (input)', () => {
  it.each(['UTC', 'utc', 'Europe/London', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires'])(
    'accepts the time zone %s and answers it as given',
    async (timeZone) => {
      const ws = await createWorkspace(ctx.db);
      const res = await stats(ws.key, { from: FROM, to: TO, timeZone });
      expect(res.status).toBe(200);
      expect(resultOf(res).range.timeZone).toBe(timeZone);
    },
  );

  it('accepts a range of exactly 366 days, answering every day of it', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await stats(ws.key, { from: new Date(TO.getTime() - 366 * DAY_MS), to: TO });
    expect(res.status).toBe(200);
    expect(resultOf(res).calls.perDay).toHaveLength(366);
  });

  it('accepts from and to as ISO strings with a zone from a plain-JSON caller', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await stats(ws.key, { from: '2026-03-01T00:00:00Z', to: '2026-03-03T19:00:00-05:00' });
    expect(res.status).toBe(200);
    expect(resultOf(res).range).toEqual({ from: FROM, to: TO, timeZone: 'UTC' });
  });

  it.each([
    ['from after to', { from: TO, to: FROM }, [['from']]],
    ['a from in the future with the default to', { from: new Date(Date.now() + DAY_MS) }, [['from']]],
    ['a range of 366 days and a millisecond', { from: new Date(TO.getTime() - 366 * DAY_MS - 1), to: TO }, [['to']]],
    ['an unknown time zone', { timeZone: 'Mars/Olympus_Mons' }, [['timeZone']]],
    ['an offset instead of a zone name', { timeZone: '+01:00' }, [['timeZone']]],
    ['an empty time zone', { timeZone: '' }, [['timeZone']]],
    ['a numeric time zone', { timeZone: 5 }, [['timeZone']]],
    ['a from without a zone', { from: '2026-03-01T00:00:00' }, [['from']]],
    ['a to before 1970', { from: new Date('1969-01-01T00:00:00Z'), to: new Date('1969-02-01T00:00:00Z') }, [['from'], ['to']]],
    ['an unknown key', { assignedToId: 'mem_x' }, [['assignedToId']]],
  ])('answers 400 for %s, naming the field', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await stats(ws.key, input);
    expect(expectRpcFailure(res, 'BAD_REQUEST', 'dashboard.getLeadStats').message).toMatch(/^Invalid input: /);
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming leads.read when the key lacks it', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.create', 'leads.update', 'leads.delete'] });
    const res = await stats(key, { from: FROM, to: TO });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'dashboard.getLeadStats').message).toBe('missing scope: leads.read');
  });

  it('answers 405 when sent as POST (it is a read)', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcPost(ctx.app, 'dashboard.getLeadStats', {}, ws.key);
    expect(res.status).toBe(405);
  });
});
