import { createTestContext } from '../helpers/test-app';
import { createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { bodyOf, listLeads } from '../helpers/leads-rest';
import * as leads from '../../src/db/leads';

const ctx = createTestContext();
afterAll(() => ctx.close());

/** What each resource's create needs besides the external id. */
const RESOURCES = {
  leads: { create: (name: string) => ({ name, phone: '+442079460130' }), noun: 'lead' },
  contacts: { create: (name: string) => ({ name }), noun: 'contact' },
  clients: { create: (name: string) => ({ name }), noun: 'client' },
} as const;
type Resource = keyof typeof RESOURCES;
const EACH = Object.keys(RESOURCES) as Resource[];

async function create(key: string, resource: Resource, input: Record<string, unknown>) {
  return rpcPost(ctx.app, `${resource}.create`, { ...RESOURCES[resource].create(unique('Ext')), ...input }, key);
}

describe.each(EACH)('%s: externalId on create, update and getAll', (resource) => {
  it('is null when unset, stored as given when set, and shown by getById and getAll', async () => {
    const ws = await createWorkspace(ctx.db);
    const plain = resultOf(await create(ws.key, resource, {}));
    expect(plain.externalId).toBeNull();
    const externalId = unique('crm 1');
    const held = resultOf(await create(ws.key, resource, { externalId }));
    expect(held.externalId).toBe(externalId);
    expect(resultOf(await rpcGet(ctx.app, `${resource}.getById`, { id: held.id }, ws.key)).externalId).toBe(externalId);
    const row = await ctx.db(resource).where({ org_id: ws.org.id, id: held.id }).first();
    expect(row.external_id).toBe(externalId);
  });

  it('answers 409 naming externalId when another record of the workspace holds it (create and update), writing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('taken');
    await create(ws.key, resource, { externalId });
    const before = await ctx.db(resource).where({ org_id: ws.org.id }).count({ n: '*' }).first();
    const again = await create(ws.key, resource, { externalId });
    const { message, issues } = expectRpcFailure(again, 'CONFLICT', `${resource}.create`);
    expect(message).toBe(`externalId: another ${RESOURCES[resource].noun} of this workspace holds this external id`);
    expect(issues?.map((i) => i.path)).toEqual([['externalId']]);
    expect(await ctx.db(resource).where({ org_id: ws.org.id }).count({ n: '*' }).first()).toEqual(before);
    const other = resultOf(await create(ws.key, resource, {}));
    expectRpcFailure(await rpcPost(ctx.app, `${resource}.update`, { id: other.id, externalId }, ws.key), 'CONFLICT', `${resource}.update`);
    expect((await ctx.db(resource).where({ org_id: ws.org.id, id: other.id }).first()).external_id).toBeNull();
  });

  it('is set and cleared by update (null), and a cleared id is free for another record', async () => {
    const ws = await createWorkspace(ctx.db);
    const record = resultOf(await create(ws.key, resource, {}));
    const externalId = unique('set');
    expect(resultOf(await rpcPost(ctx.app, `${resource}.update`, { id: record.id, externalId }, ws.key)).externalId).toBe(externalId);
    expect(resultOf(await rpcPost(ctx.app, `${resource}.update`, { id: record.id, externalId: null }, ws.key)).externalId).toBeNull();
    expect(resultOf(await create(ws.key, resource, { externalId })).externalId).toBe(externalId);
  });

  it('lets two workspaces hold one id, and getAll filters by it within the caller\'s workspace only, with the right total', async () => {
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    const externalId = unique('both');
    const inA = resultOf(await create(a.key, resource, { externalId }));
    const inB = resultOf(await create(b.key, resource, { externalId }));
    await create(a.key, resource, {});
    const page = resultOf(await rpcGet(ctx.app, `${resource}.getAll`, { externalId }, a.key));
    expect(page.data.map((r: { id: string }) => r.id)).toEqual([inA.id]);
    expect(page.pagination.total).toBe(1);
    expect(resultOf(await rpcGet(ctx.app, `${resource}.getAll`, { externalId }, b.key)).data.map((r: { id: string }) => r.id)).toEqual([inB.id]);
    const none = resultOf(await rpcGet(ctx.app, `${resource}.getAll`, { externalId: unique('none') }, a.key));
    expect([none.data, none.pagination.total]).toEqual([[], 0]);
  });

  it('answers 400 naming externalId for an empty, too long or control-character id', async () => {
    const ws = await createWorkspace(ctx.db);
    for (const externalId of ['', 'y'.repeat(256), 'a\rb']) {
      const res = await create(ws.key, resource, { externalId });
      expectRpcFailure(res, 'BAD_REQUEST', `${resource}.create`);
      expect(issuePaths(res)).toEqual([['externalId']]);
    }
  });
});

describe('leads: externalId in the stored JSON, the REST list and events', () => {
  it('filters GET /api/v1/leads and leads.getAll by externalId (pages and totals), the stored JSON carrying it', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('rest');
    const held = resultOf(await create(ws.key, 'leads', { externalId }));
    for (let i = 0; i < 3; i++) await create(ws.key, 'leads', {});
    const res = await listLeads(ctx.app, ws.key, { externalId });
    expect(res.status).toBe(200);
    const body = bodyOf(res);
    expect(body.data.map((l) => [l.id, l.externalId])).toEqual([[held.id, externalId]]);
    expect(body.pagination).toMatchObject({ total: 1, totalPages: 1, hasNextPage: false });
    const second = bodyOf(await listLeads(ctx.app, ws.key, { externalId, page: 2, pageSize: 1 }));
    expect([second.data, second.pagination.total]).toEqual([[], 1]);
    const withStatus = bodyOf(await listLeads(ctx.app, ws.key, { externalId, status: 'CONTACTED' }));
    expect([withStatus.data, withStatus.pagination.total]).toEqual([[], 0]);
    const all = bodyOf(await listLeads(ctx.app, ws.key, {}));
    expect(all.pagination.total).toBe(4);
    const stored: { lead_id: string; json: string }[] = await ctx.db('lead_json').where({ org_id: ws.org.id }).select('lead_id', 'json').orderBy('lead_id');
    expect(stored).toEqual(await leads.renderLeadJson(ctx.db, ws.org.id));
    expect(JSON.parse(stored.find((s) => s.lead_id === held.id)!.json).externalId).toBe(externalId);
  });

  it('walks a filtered list by cursor, and refuses a cursor made for another externalId', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('cursor');
    await create(ws.key, 'leads', { externalId });
    const first = bodyOf(await listLeads(ctx.app, ws.key, { externalId, pageSize: 1 }));
    expect(first.pagination.nextCursor).toBeNull();
    await create(ws.key, 'leads', {});
    await create(ws.key, 'leads', {});
    const page = bodyOf(await listLeads(ctx.app, ws.key, { pageSize: 1 }));
    const other = await listLeads(ctx.app, ws.key, { externalId, cursor: page.pagination.nextCursor! });
    expect(other.status).toBe(400);
  });

  it('shows externalId in the events of the lead (data.object)', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('evt');
    const lead = resultOf(await create(ws.key, 'leads', { externalId }));
    await rpcPost(ctx.app, 'leads.update', { id: lead.id, externalId: null }, ws.key);
    const events: { type: string; data: { object: { externalId: string | null } } }[] = await ctx.db('events')
      .where({ org_id: ws.org.id }).whereIn('type', ['lead.created', 'lead.updated', 'contact.created']).select('type', 'data').orderBy('seq');
    expect(events.map((e) => [e.type, e.data.object.externalId])).toEqual([['contact.created', null], ['lead.created', externalId], ['lead.updated', null]]);
  });
});
