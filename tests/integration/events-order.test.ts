import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { resultOf, rpcGet, rpcPost } from '../helpers/rpc';

const ctx = createTestContext();
afterAll(() => ctx.close());

/**
 * Catch-up order is numeric by transaction id. Selected as text (positions travel as strings), a
 * bare `txid` in ORDER BY named the text and sorted 10 before 9: when the server's transaction ids
 * passed a power of ten (999 -> 1000, and one day 99,999,999 -> 100,000,000) readers skipped and
 * repeated events. Here the events' ids are set across such a boundary.
 */
test('events.getAll catch-up pages through transaction ids 8, 9, 10, 11 in that order, each event once', async () => {
  const ws = await createWorkspace(ctx.db);
  const created: string[] = [];
  for (let i = 0; i < 4; i += 1) created.push(resultOf(await rpcPost(ctx.app, 'leads.create', { name: `Order ${i}`, phone: '+442079460018' }, ws.key)).id);
  // Each create's two events (contact.created, lead.created) take one small, long-finished transaction id.
  for (const [i, leadId] of created.entries()) {
    const { rows } = await ctx.db.raw<{ rows: { contact_id: string }[] }>('select contact_id from leads where org_id = ? and id = ?', [ws.org.id, leadId]);
    await ctx.db('events').where({ org_id: ws.org.id }).whereIn('object_id', [leadId, rows[0]!.contact_id]).update({ txid: ctx.db.raw('?::text::xid8', [String(8 + i)]) });
  }

  const seen: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 10; page += 1) {
    const answer: { data: { id: string; type: string; data: { object: { id: string } } }[]; pagination: { nextAfter: string | null; hasNextPage: boolean } } =
      resultOf(await rpcGet(ctx.app, 'events.getAll', { after, pageSize: 3 }, ws.key));
    seen.push(...answer.data.filter((e) => e.type === 'lead.created').map((e) => e.data.object.id));
    after = answer.pagination.nextAfter;
    if (!answer.pagination.hasNextPage) break;
  }
  expect(seen).toEqual(created);
});
