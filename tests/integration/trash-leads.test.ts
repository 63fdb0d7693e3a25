import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { listLeads } from '../helpers/leads-rest';
import { exportLeads, exportText, ndjsonLeads } from '../helpers/leads-export';
import { expectRpcFailure } from '../helpers/leads-procedures-helpers';
import { purgeExpiredTrash } from '../../src/trash/purge';
import { acrossWorkspaces } from '../helpers/across-workspaces';

const ctx = createTestContext();
afterAll(() => ctx.close());

type Ws = Awaited<ReturnType<typeof createWorkspace>>;

/** One range for every dashboard read of a test (its default ends now, and would move). */
const STATS_RANGE = { from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000) };

/** What a reader sees of the workspace's leads: the REST list (stored JSON) and its totals by status. */
async function visible(ws: Ws) {
  const all = (await listLeads(ctx.app, ws.key, { pageSize: 100 })).body;
  const contacted = (await listLeads(ctx.app, ws.key, { status: 'CONTACTED' })).body;
  const stats = resultOf(await rpcGet(ctx.app, 'dashboard.getLeadStats', STATS_RANGE, ws.key));
  const exported = ndjsonLeads(exportText(await exportLeads(ctx.app, ws.key, { format: 'ndjson' }))).map((l) => l.id).sort();
  return { data: all.data, total: all.pagination.total, contacted: contacted.pagination.total, stats, exported };
}

/** Moves a trash row's deletion back by `days` (as if it had been deleted then). */
async function ageTrash(ws: Ws, id: string, days: number) {
  const { deleted_at: deletedAt } = await ctx.db('trash').where({ org_id: ws.org.id, id }).first();
  await ctx.db('trash').where({ org_id: ws.org.id, id }).update({ deleted_at: new Date(deletedAt.getTime() - days * 86_400_000) });
}

async function leadWithEverything(ws: Ws) {
  const member = await createMember(ctx.db, ws.org.id);
  const client = resultOf(await rpcPost(ctx.app, 'clients.create', { name: unique('Client') }, ws.key));
  const lead = await createLead(ctx.db, ws.org.id, {
    name: unique('Trash Lead'), phones: ['+442079460123'], emails: ['t@example.com'], status: 'CONTACTED',
    assignedToId: member.id, clientId: client.id, externalId: unique('ext'), notes: 'a note',
  });
  expect((await rpcPost(ctx.app, 'leads.logCall', { id: lead.id, outcome: 'BUSY', notes: 'rang' }, ws.key)).status).toBe(200);
  const task = resultOf(await rpcPost(ctx.app, 'tasks.create', { title: 'Call back', leadId: lead.id }, ws.key));
  return { lead: resultOf(await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key)), member, client, task };
}

describe('leads.delete then leads.restore', () => {
  it('gives back the same lead: getById, calls, stored JSON, task link, list totals, and records lead.restored', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id, { status: 'CONTACTED' });
    const { lead, task } = await leadWithEverything(ws);
    const calls = resultOf(await rpcGet(ctx.app, 'leads.getCalls', { id: lead.id }, ws.key));
    const before = await visible(ws);
    const storedJson = await ctx.db('lead_json').where({ org_id: ws.org.id, lead_id: lead.id }).first();
    expect(before.total).toBe(2);

    expect((await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key)).status).toBe(200);
    // Gone from every read while in the trash.
    expectRpcFailure(await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key), 'NOT_FOUND', 'leads.getById');
    const trashed = await visible(ws);
    expect([trashed.total, trashed.contacted, trashed.data.map((l: { id: string }) => l.id)]).toEqual([1, 1, [before.data.find((l: { id: string }) => l.id !== lead.id).id]]);
    expect(trashed.stats).not.toEqual(before.stats);
    expect(trashed.exported).toEqual(before.exported.filter((id) => id !== lead.id));
    expect((await listLeads(ctx.app, ws.key, { search: lead.name })).body.data).toEqual([]);
    expect(resultOf(await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key)).leadId).toBeNull();

    const res = await rpcPost(ctx.app, 'leads.restore', { id: lead.id }, ws.key);
    expect(res.status).toBe(200);
    expect(resultOf(res)).toEqual(lead);
    expect(resultOf(await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key))).toEqual(lead);
    expect(resultOf(await rpcGet(ctx.app, 'leads.getCalls', { id: lead.id }, ws.key))).toEqual(calls);
    expect(await visible(ws)).toEqual(before);
    expect(await ctx.db('lead_json').where({ org_id: ws.org.id, lead_id: lead.id }).first()).toEqual(storedJson);
    expect(resultOf(await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key)).leadId).toBe(lead.id);
    const counted = await ctx.db('lead_counts').where({ org_id: ws.org.id }).sum({ n: 'n' });
    expect(Number(counted[0]!.n)).toBe(2);
    const events = resultOf(await rpcGet(ctx.app, 'events.getAll', { type: 'lead.restored' }, ws.key)).data;
    expect(events.map((e: { data: { object: { id: string } } }) => e.data.object)).toEqual([{ ...lead, createdAt: lead.createdAt.toISOString(), updatedAt: lead.updatedAt.toISOString(), nextCallAt: null }]);
    expect(await ctx.db('trash').where({ org_id: ws.org.id })).toEqual([]);
  });

  it('answers 404 for a lead never deleted, already restored, of another workspace, or past the retention', async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const live = await createLead(ctx.db, ws.org.id);
    expectRpcFailure(await rpcPost(ctx.app, 'leads.restore', { id: live.id }, ws.key), 'NOT_FOUND', 'leads.restore');
    const other = await createLead(ctx.db, theirs.org.id);
    await rpcPost(ctx.app, 'leads.delete', { id: other.id }, theirs.key);
    const res = await rpcPost(ctx.app, 'leads.restore', { id: other.id }, ws.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', 'leads.restore').message).toBe(`No lead ${JSON.stringify(other.id)} in this workspace`);

    const old = await createLead(ctx.db, ws.org.id);
    await rpcPost(ctx.app, 'leads.delete', { id: old.id }, ws.key);
    await ageTrash(ws, old.id, 31);
    expectRpcFailure(await rpcPost(ctx.app, 'leads.restore', { id: old.id }, ws.key), 'NOT_FOUND', 'leads.restore');
    expect(resultOf(await rpcGet(ctx.app, 'leads.getDeleted', {}, ws.key)).data).toEqual([]);
    expectRpcFailure(await rpcGet(ctx.app, 'leads.getById', { id: old.id }, ws.key), 'NOT_FOUND', 'leads.getById');
  });

  it('answers 409 "restore the contact first" when its contact is in the trash, and restores after the contact', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    expect((await rpcPost(ctx.app, 'contacts.delete', { id: lead.contactId }, ws.key)).status).toBe(200);
    const res = await rpcPost(ctx.app, 'leads.restore', { id: lead.id }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'leads.restore').message)
      .toBe(`lead ${JSON.stringify(lead.id)} refers to contact ${JSON.stringify(lead.contactId)}, which is in the trash: restore the contact first`);
    // The failed restore left it in the trash.
    expect(resultOf(await rpcGet(ctx.app, 'leads.getDeleted', {}, ws.key)).data.map((l: { id: string }) => l.id)).toEqual([lead.id]);
    expect((await rpcPost(ctx.app, 'contacts.restore', { id: lead.contactId }, ws.key)).status).toBe(200);
    expect(resultOf(await rpcPost(ctx.app, 'leads.restore', { id: lead.id }, ws.key))).toEqual(lead);
  });

  it('answers 409 when its contact no longer exists at all', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    await rpcPost(ctx.app, 'contacts.delete', { id: lead.contactId }, ws.key);
    await ctx.db('trash').where({ org_id: ws.org.id, resource: 'contact' }).delete();
    const res = await rpcPost(ctx.app, 'leads.restore', { id: lead.id }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'leads.restore').message).toMatch(/which no longer exists: it cannot be restored$/);
  });

  it('answers 409 naming the externalId when another lead holds it now', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('ext');
    const lead = await createLead(ctx.db, ws.org.id, { externalId });
    await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    await createLead(ctx.db, ws.org.id, { externalId });
    const res = await rpcPost(ctx.app, 'leads.restore', { id: lead.id }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'leads.restore').message)
      .toBe(`externalId ${JSON.stringify(externalId)} is now held by another lead: change that one's externalId first`);
  });

  it('answers 409 "restore the client first" when its client is in the trash', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = resultOf(await rpcPost(ctx.app, 'clients.create', { name: unique('Client') }, ws.key));
    const lead = await createLead(ctx.db, ws.org.id, { clientId: client.id });
    await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    expect((await rpcPost(ctx.app, 'clients.delete', { id: client.id }, ws.key)).status).toBe(200);
    const res = await rpcPost(ctx.app, 'leads.restore', { id: lead.id }, ws.key);
    expect(expectRpcFailure(res, 'CONFLICT', 'leads.restore').message).toMatch(/which is in the trash: restore the client first$/);
  });

  it('restores with the assignee link cleared when the member is gone', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const lead = await createLead(ctx.db, ws.org.id, { assignedToId: member.id });
    await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    await ctx.db('org_members').where({ org_id: ws.org.id, id: member.id }).delete();
    const restored = resultOf(await rpcPost(ctx.app, 'leads.restore', { id: lead.id }, ws.key));
    expect(restored).toEqual({ ...lead, assignedToId: null });
    expect((await listLeads(ctx.app, ws.key, { assignedToId: 'unassigned' })).body.pagination.total).toBe(1);
  });
});

describe('a restored lead and its contact changed meanwhile', () => {
  it('shows, and is found by, its contact as it is now (search copies and stored JSON rebuilt)', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { name: unique('Before') });
    await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    const renamed = unique('Renamed');
    expect((await rpcPost(ctx.app, 'contacts.update', { id: lead.contactId, name: renamed, phones: ['+442079460999'] }, ws.key)).status).toBe(200);
    expect(resultOf(await rpcGet(ctx.app, 'leads.getDeleted', {}, ws.key)).data[0]).toMatchObject({ id: lead.id, name: renamed });
    const restored = resultOf(await rpcPost(ctx.app, 'leads.restore', { id: lead.id }, ws.key));
    expect(restored).toMatchObject({ id: lead.id, name: renamed, phones: ['+442079460999'], updatedAt: lead.updatedAt });
    expect((await listLeads(ctx.app, ws.key, { search: renamed })).body.data).toMatchObject([{ id: lead.id, name: renamed }]);
    expect((await listLeads(ctx.app, ws.key, { search: '2079460999' })).body.data).toMatchObject([{ id: lead.id }]);
  });
});

describe('GET leads.getDeleted', () => {
  it('lists the trash newest first, each lead as getById answered it with deletedAt, paginated', async () => {
    const ws = await createWorkspace(ctx.db);
    const first = await createLead(ctx.db, ws.org.id);
    const second = await createLead(ctx.db, ws.org.id);
    await rpcPost(ctx.app, 'leads.delete', { id: first.id }, ws.key);
    await rpcPost(ctx.app, 'leads.delete', { id: second.id }, ws.key);
    await ageTrash(ws, first.id, 1);
    const page = resultOf(await rpcGet(ctx.app, 'leads.getDeleted', { pageSize: 1 }, ws.key));
    expect(page.pagination).toMatchObject({ page: 1, pageSize: 1, total: 2 });
    expect(page.data).toEqual([{ ...second, deletedAt: expect.any(Date) }]);
    const next = resultOf(await rpcGet(ctx.app, 'leads.getDeleted', { page: 2, pageSize: 1 }, ws.key));
    expect(next.data.map((l: { id: string }) => l.id)).toEqual([first.id]);
  });
});

describe('scopes', () => {
  it('leads.restore needs leads.delete and leads.getDeleted needs leads.read', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    await rpcPost(ctx.app, 'leads.delete', { id: lead.id }, ws.key);
    const { key: reader } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read', 'leads.update'] });
    expect(expectRpcFailure(await rpcPost(ctx.app, 'leads.restore', { id: lead.id }, reader), 'FORBIDDEN', 'leads.restore').message)
      .toBe('missing scope: leads.delete');
    const { key: deleter } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.delete'] });
    expect(expectRpcFailure(await rpcGet(ctx.app, 'leads.getDeleted', {}, deleter), 'FORBIDDEN', 'leads.getDeleted').message)
      .toBe('missing scope: leads.read');
    expect(resultOf(await rpcGet(ctx.app, 'leads.getDeleted', {}, reader)).data).toHaveLength(1);
  });
});

describe('the purge', () => {
  it('removes only the trash rows past the retention', async () => {
    const ws = await createWorkspace(ctx.db);
    const old = await createLead(ctx.db, ws.org.id);
    const recent = await createLead(ctx.db, ws.org.id);
    await rpcPost(ctx.app, 'leads.delete', { id: old.id }, ws.key);
    await rpcPost(ctx.app, 'leads.delete', { id: recent.id }, ws.key);
    await ageTrash(ws, old.id, 31);
    await ageTrash(ws, recent.id, 29);
    expect(await purgeExpiredTrash(ctx.db, 30, { batchSize: 1 })).toBeGreaterThanOrEqual(1);
    const left = await acrossWorkspaces(ctx.db, (trx) => trx('trash').where({ org_id: ws.org.id }).pluck('id'));
    expect(left).toEqual([recent.id]);
    // The purged lead's change history went with it; the one still in the trash keeps its own.
    const historyOf = (id: string) => ctx.db('record_history').where({ org_id: ws.org.id, record_id: id }).pluck('action');
    expect(await historyOf(old.id)).toEqual([]);
    expect(await historyOf(recent.id)).toEqual(['deleted']);
    expect(resultOf(await rpcPost(ctx.app, 'leads.restore', { id: recent.id }, ws.key))).toEqual(recent);
    expect((await historyOf(recent.id)).sort()).toEqual(['deleted', 'restored']);
  });
});
