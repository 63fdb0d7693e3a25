import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createMember } from '../helpers/factories';
import { bodyOf, idsOf, listLeads } from '../helpers/leads-rest';
import { errorOf, resultOf, rpcGet } from '../helpers/rpc';
import type { Db } from '../../src/db/knex';
import * as leads from '../../src/db/leads';

const ctx = createTestContext();
afterAll(() => ctx.close());

const cursorOf = (res: { body: unknown }) => (res.body as { pagination: { nextCursor: string | null } }).pagination.nextCursor;

/**
 * Inserts `count` leads in one statement each for contacts and leads (the leads through their
 * data module's insertMany, as a bulk load would):
 * few distinct next calls, some none, and shared creation times, so the order leans on its
 * id tiebreak. Answers the ids in the list's order.
 */
async function insertLeads(db: Db, orgId: string, count: number, tag: string, assignedToId: string | null = null): Promise<string[]> {
  await db.raw(
    `insert into contacts (org_id, id, name) select ?, 'con_' || ? || g, 'Person ' || g from generate_series(1, ?) g`,
    [orgId, tag, count],
  );
  const day = 86_400_000;
  await db.transaction((trx) => leads.insertLeads(trx, orgId, Array.from({ length: count }, (_, i) => {
    const g = i + 1;
    return {
      id: `lead_${tag}${g}`, contactId: `con_${tag}${g}`,
      nextCallAt: g % 4 === 0 ? null : new Date(Date.parse('2031-01-01T00:00:00Z') + (g % 3) * day),
      createdAt: new Date(Date.parse('2026-01-01T00:00:00Z') + (g % 5) * 3_600_000),
      assignedToId, status: g % 2 === 0 ? 'CONTACTED' : 'NOT_CONTACTED', source: null, notes: null, clientId: null,
    };
  })));
  return listOrder(db, orgId);
}

async function listOrder(db: Db, orgId: string, where = 'true'): Promise<string[]> {
  const rows: { id: string }[] = (
    await db.raw(`select id from leads where org_id = ? and ${where} order by next_call_at asc nulls last, created_at desc, id desc`, [orgId])
  ).rows;
  return rows.map((r) => r.id);
}

/** Follows nextCursor from the first page; `between` runs after each page. */
async function walk(key: string, filters: Record<string, string | number>, between: (pageNo: number) => Promise<void> = async () => {}) {
  const pages = [];
  let res = await listLeads(ctx.app, key, { pageSize: 100, ...filters });
  for (;;) {
    expect(res.status).toBe(200);
    pages.push(bodyOf(res) as ReturnType<typeof bodyOf> & { pagination: { nextCursor: string | null; page: number | null } });
    const cursor = pages[pages.length - 1]!.pagination.nextCursor;
    if (cursor === null || pages.length > 20) break;
    await between(pages.length);
    res = await listLeads(ctx.app, key, { pageSize: 100, ...filters, cursor });
  }
  return pages;
}

describe('GET /api/v1/leads with cursor', () => {
  it('walks 250 leads in pages of 100 by nextCursor: each lead once, in the list order, then null', async () => {
    const ws = await createWorkspace(ctx.db);
    const ordered = await insertLeads(ctx.db, ws.org.id, 250, 'w250');

    const pages = await walk(ws.key, {});

    expect(pages.map((p) => p.data.length)).toEqual([100, 100, 50]);
    expect(pages.flatMap((p) => p.data.map((l) => l.id))).toEqual(ordered);
    expect(pages.map((p) => p.pagination.page)).toEqual([1, null, null]);
    expect(pages[1]!.pagination).toEqual({
      page: null, pageSize: 100, total: 250, totalPages: 3, hasNextPage: true, hasPrevPage: true, nextCursor: expect.any(String),
    });
    expect(pages[2]!.pagination).toMatchObject({ hasNextPage: false, hasPrevPage: true, nextCursor: null, total: 250 });
  });

  it('walks a filtered list (status and assignee) in its own order', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    await insertLeads(ctx.db, ws.org.id, 130, 'fa', member.id);
    await insertLeads(ctx.db, ws.org.id, 40, 'fb');
    const expected = await listOrder(ctx.db, ws.org.id, `status = 'CONTACTED' and assigned_to_id is not null`);

    const pages = await walk(ws.key, { status: 'CONTACTED', assignedToId: member.id, pageSize: 30 });

    expect(pages.flatMap((p) => p.data.map((l) => l.id))).toEqual(expected);
    expect(pages[0]!.pagination.total).toBe(65);
  });

  it('returns every lead present from the start exactly once when leads are inserted, changed and deleted mid-walk', async () => {
    const ws = await createWorkspace(ctx.db);
    const original = await insertLeads(ctx.db, ws.org.id, 250, 'mid');
    const deleted = original[180]!;

    const pages = await walk(ws.key, {}, async (pageNo) => {
      // New leads that sort before, among and after the walk's position.
      await insertLeads(ctx.db, ws.org.id, 30, `ins${pageNo}`);
      await ctx.db.transaction((trx) => leads.updateLead(trx, ws.org.id, original[200]!, { fields: { notes: 'changed, same sort key', status: 'LOST' } }));
      if (pageNo === 1) await ctx.db.transaction((trx) => leads.deleteLead(trx, ws.org.id, deleted, { kind: 'system', id: 'test' }));
    });
    const seen = pages.flatMap((p) => p.data.map((l) => l.id));

    expect(new Set(seen).size).toBe(seen.length);
    const kept = original.filter((id) => id !== deleted);
    expect(seen.filter((id) => original.includes(id))).toEqual(kept);
    expect(seen).not.toContain(deleted);
  });

  it('answers nextCursor on page-number pages too, and continuing from page 2 by cursor gives page 3', async () => {
    const ws = await createWorkspace(ctx.db);
    await insertLeads(ctx.db, ws.org.id, 9, 'pm');

    const second = await listLeads(ctx.app, ws.key, { page: 2, pageSize: 3 });
    const third = await listLeads(ctx.app, ws.key, { page: 3, pageSize: 3 });
    const byCursor = await listLeads(ctx.app, ws.key, { pageSize: 3, cursor: cursorOf(second) as string });

    expect(idsOf(byCursor)).toEqual(idsOf(third));
    expect(cursorOf(third)).toBeNull();
  });
});

describe('GET /api/v1/leads cursor refusals', () => {
  async function firstCursor(filters: Record<string, string> = {}) {
    const ws = await createWorkspace(ctx.db);
    await insertLeads(ctx.db, ws.org.id, 10, 'rf');
    const res = await listLeads(ctx.app, ws.key, { pageSize: 2, ...filters });
    return { ws, cursor: cursorOf(res) as string };
  }

  it('answers 400 naming cursor when cursor and page are both given', async () => {
    const { ws, cursor } = await firstCursor();

    const res = await listLeads(ctx.app, ws.key, { cursor, page: 1 });

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', issues: [{ path: ['cursor'], message: 'give either cursor or page, not both' }] });
  });

  it.each([
    ['garbage', () => 'not-a-cursor'],
    ['an empty value', () => ''],
    ['a cursor with one character changed', (c: string) => `${c[0] === 'A' ? 'B' : 'A'}${c.slice(1)}`],
    ['a cursor cut short', (c: string) => c.slice(0, -3)],
    ['valid base64url JSON with a made-up checksum', () => `${Buffer.from('[1,null,0,"lead_x","abc"]').toString('base64url')}.AAAAAAAA`],
  ])('answers 400 naming cursor for %s', async (_label, tamper) => {
    const { ws, cursor } = await firstCursor();

    const res = await listLeads(ctx.app, ws.key, { cursor: tamper(cursor) });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.issues[0].path).toEqual(['cursor']);
  });

  it('answers 400 saying the filters differ when a cursor is used with other filters', async () => {
    const { ws, cursor } = await firstCursor({ status: 'CONTACTED' });

    const res = await listLeads(ctx.app, ws.key, { cursor, status: 'LOST' });
    const none = await listLeads(ctx.app, ws.key, { cursor });
    const same = await listLeads(ctx.app, ws.key, { cursor, status: 'CONTACTED' });

    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('other filters');
    expect(none.status).toBe(400);
    expect(same.status).toBe(200);
  });

  it("answers 400 for another workspace's cursor, never its leads", async () => {
    const { cursor } = await firstCursor();
    const other = await createWorkspace(ctx.db);

    const res = await listLeads(ctx.app, other.key, { cursor });

    expect(res.status).toBe(400);
    expect(res.body.error.issues[0].path).toEqual(['cursor']);
  });
});

describe('GET leads.getAll with cursor', () => {
  it('walks by nextCursor as the REST list does, with the same cursors', async () => {
    const ws = await createWorkspace(ctx.db);
    const ordered = await insertLeads(ctx.db, ws.org.id, 7, 'rpc');

    const first = await rpcGet(ctx.app, 'leads.getAll', { pageSize: 4 }, ws.key);
    const rest = await listLeads(ctx.app, ws.key, { pageSize: 4 });
    const cursor = resultOf(first).pagination.nextCursor as string;
    const second = await rpcGet(ctx.app, 'leads.getAll', { pageSize: 4, cursor }, ws.key);

    expect(cursor).toBe(cursorOf(rest));
    expect([...resultOf(first).data, ...resultOf(second).data].map((l: { id: string }) => l.id)).toEqual(ordered);
    expect(resultOf(second).pagination).toMatchObject({ page: null, nextCursor: null, hasNextPage: false, total: 7 });
  });

  it('answers 400 naming cursor when cursor and page are both given', async () => {
    const ws = await createWorkspace(ctx.db);

    const res = await rpcGet(ctx.app, 'leads.getAll', { page: 2, cursor: 'abc.def' }, ws.key);

    expect(res.status).toBe(400);
    expect(errorOf(res).data.issues?.map((i) => i.path)).toEqual([['cursor']]);
  });
});
