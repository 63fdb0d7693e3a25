import { createTestContext, createTestDb } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { LEAD_FIELDS, countRows, expectRpcFailure, issuePaths, snapshot } from '../helpers/leads-procedures-helpers';
import { insertEndpoint } from '../helpers/webhook-fixtures';
import * as leads from '../../src/db/leads';
import type { Db } from '../../src/db/knex';

// Racing upserts need more connections than a test's default pool.
const ctx = createTestContext({ db: createTestDb(25) });
afterAll(() => ctx.close());

function upsert(key: string, input: unknown) {
  return rpcPost(ctx.app, 'leads.upsert', input, key);
}

async function eventTypes(db: Db, orgId: string): Promise<string[]> {
  const rows: { type: string }[] = await db('events').where({ org_id: orgId }).select('type');
  return rows.map((r) => r.type).sort();
}

async function expectStoredJsonFresh(orgId: string): Promise<void> {
  const stored: { lead_id: string; json: string }[] = await ctx.db('lead_json').where({ org_id: orgId }).select('lead_id', 'json').orderBy('lead_id');
  expect(stored).toEqual(await leads.renderLeadJson(ctx.db, orgId));
}

describe('POST leads.upsert (create or change)', () => {
  it('creates the lead when no lead holds the external id: created true, the 17 fields and created, its events', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('crm');
    const res = await upsert(ws.key, { externalId, name: 'Ana Upsert', phone: '+442079460101', email: 'ana@upsert.example', source: 'crm' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...LEAD_FIELDS, 'created'].sort());
    const lead = resultOf(res);
    expect(lead).toMatchObject({
      created: true, externalId, name: 'Ana Upsert', phones: ['+442079460101'], emails: ['ana@upsert.example'], source: 'crm', status: 'NOT_CONTACTED',
    });
    expect(await eventTypes(ctx.db, ws.org.id)).toEqual(['contact.created', 'lead.created']);
    const [row] = await ctx.db('leads').where({ org_id: ws.org.id, external_id: externalId });
    expect(row.id).toBe(lead.id);
    const { created: _created, ...answered } = lead;
    const created = await ctx.db('events').where({ org_id: ws.org.id, type: 'lead.created' }).first();
    expect(created.data.object).toEqual(JSON.parse(JSON.stringify(answered)));
    await expectStoredJsonFresh(ws.org.id);
  });

  it('changes the lead holding the id: created false, given fields replaced, absent ones kept, leads.update events', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('crm');
    const first = resultOf(await upsert(ws.key, {
      externalId, name: 'Before', phone: '+442079460102', phones: ['+442079460103'], email: 'keep@upsert.example', company: 'Old Ltd',
      source: 'crm', notes: 'kept', status: 'CONTACTED',
    }));
    const res = await upsert(ws.key, { externalId, name: 'After', phone: '+442079460104', company: null, status: 'NO_ANSWER' });
    expect(res.status).toBe(200);
    const second = resultOf(res);
    expect(second).toEqual({
      ...first, created: false, name: 'After', phones: ['+442079460104'], primaryPhone: '+442079460104', company: null,
      status: 'NO_ANSWER', updatedAt: expect.any(Date),
    });
    expect(second.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime());
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 1, contacts: 1 });
    expect(await eventTypes(ctx.db, ws.org.id)).toEqual(['contact.created', 'contact.updated', 'lead.created', 'lead.status_changed', 'lead.updated']);
    // emails given replace the stored ones
    const third = resultOf(await upsert(ws.key, { externalId, name: 'After', phone: '+442079460104', emails: ['new@upsert.example'] }));
    expect(third).toMatchObject({ created: false, emails: ['new@upsert.example'], notes: 'kept', source: 'crm' });
    const { rows: counts } = await ctx.db.raw<{ rows: { status: string; n: number }[] }>(
      'select status, sum(n)::int as n from lead_counts where org_id = ? group by status having sum(n) <> 0', [ws.org.id]);
    expect(counts).toEqual([{ status: 'NO_ANSWER', n: 1 }]);
    await expectStoredJsonFresh(ws.org.id);
  });

  it('records a held lead\'s change as leads.update would: each event\'s object as answered, deliveries numbered as their events', async () => {
    const ws = await createWorkspace(ctx.db);
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'https://hooks.example/changes', events: ['*'] });
    const externalId = unique('crm');
    const first = resultOf(await upsert(ws.key, { externalId, name: 'Seen', phone: '+442079460113', status: 'CONTACTED' }));
    const res = await upsert(ws.key, { externalId, name: 'Seen again', phone: '+442079460114', status: 'QUALIFIED', assignedToId: ws.member.id });
    const { created, ...lead } = resultOf(res);
    expect(created).toBe(false);
    expect(lead).toMatchObject({ id: first.id, name: 'Seen again', status: 'QUALIFIED', assignedToId: ws.member.id });
    const changes = await ctx.db('events').where({ org_id: ws.org.id }).whereNotIn('type', ['lead.created', 'contact.created']).orderBy('seq');
    expect(changes.map((e: { type: string }) => e.type)).toEqual(['contact.updated', 'lead.updated', 'lead.status_changed', 'lead.assigned']);
    const json = JSON.parse(JSON.stringify(lead));
    for (const e of changes.slice(1)) expect(e.data.object).toEqual(json);
    expect(changes[2].data).toMatchObject({ from: 'CONTACTED', to: 'QUALIFIED' });
    expect(changes[3].data).toMatchObject({ from: null, to: ws.member.id });
    const contact = resultOf(await rpcGet(ctx.app, 'contacts.getById', { id: lead.contactId }, ws.key));
    expect(changes[0].data.object).toEqual(JSON.parse(JSON.stringify(contact)));
    expect(contact.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime() - 1);
    const deliveries = await ctx.db('webhook_deliveries').where({ org_id: ws.org.id }).whereIn('event_id', changes.map((e: { id: string }) => e.id));
    expect(deliveries.map((d: { event_id: string; event_seq: string }) => [d.event_id, String(d.event_seq)]).sort())
      .toEqual(changes.map((e: { id: string; seq: string }) => [e.id, String(e.seq)]).sort());
    const { rows: counts } = await ctx.db.raw<{ rows: { key: string; n: number }[] }>(
      `select status || '/' || assignee_key as key, sum(n)::int as n from lead_counts where org_id = ? group by 1 having sum(n) <> 0`, [ws.org.id]);
    expect(counts).toEqual([{ key: `QUALIFIED/${ws.member.id}`, n: 1 }]);
    await expectStoredJsonFresh(ws.org.id);
  });

  it('honours expectedUpdatedAt: the read version changes the lead; a stale one, or one for no lead, is a 409 and nothing is written', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('crm');
    const lead = resultOf(await upsert(ws.key, { externalId, name: 'Versioned', phone: '+442079460105' }));
    const changed = await upsert(ws.key, { externalId, name: 'Versioned 2', phone: '+442079460105', expectedUpdatedAt: lead.updatedAt });
    expect(resultOf(changed)).toMatchObject({ created: false, name: 'Versioned 2' });
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    const stale = await upsert(ws.key, { externalId, name: 'Lost', phone: '+442079460105', expectedUpdatedAt: lead.updatedAt });
    expect(expectRpcFailure(stale, 'CONFLICT', 'leads.upsert').message).toMatch(/was changed at/);
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
    const missing = await upsert(ws.key, { externalId: unique('none'), name: 'Nobody', phone: '+442079460106', expectedUpdatedAt: lead.updatedAt });
    expect(expectRpcFailure(missing, 'CONFLICT', 'leads.upsert').message).toMatch(/No lead of this workspace holds externalId/);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 1, contacts: 1 });
  });

  it('keeps the status rules of leads.update: a converted lead is not moved back (409, nothing written)', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('crm');
    const lead = resultOf(await upsert(ws.key, { externalId, name: 'Converted', phone: '+442079460107' }));
    expect((await rpcPost(ctx.app, 'leads.convert', { id: lead.id }, ws.key)).status).toBe(200);
    const before = await snapshot(ctx.db, ws.org.id, lead.id);
    expectRpcFailure(await upsert(ws.key, { externalId, name: 'Back', phone: '+442079460107', status: 'CONTACTED' }), 'CONFLICT', 'leads.upsert');
    expect(await snapshot(ctx.db, ws.org.id, lead.id)).toEqual(before);
  });

  it('keeps workspaces apart: one external id in two workspaces is two leads, and each upsert changes its own', async () => {
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    const externalId = unique('shared');
    const inA = resultOf(await upsert(a.key, { externalId, name: 'In A', phone: '+442079460108' }));
    const inB = resultOf(await upsert(b.key, { externalId, name: 'In B', phone: '+442079460108' }));
    expect(inB.created).toBe(true);
    expect(inB.id).not.toBe(inA.id);
    expect(resultOf(await upsert(b.key, { externalId, name: 'In B again', phone: '+442079460108' }))).toMatchObject({ id: inB.id, created: false });
    expect((await snapshot(ctx.db, a.org.id, inA.id)).contact.name).toBe('In A');
  });
});

describe('POST leads.upsert (input and scopes)', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['256 characters', 'x'.repeat(256)],
    ['a line break', 'crm\n1'],
    ['a tab', 'crm\t1'],
    ['a NUL', 'crm\u00001'],
    ['a C1 control character', 'crm\u00851'],
  ])('answers 400 naming externalId when it is %s, writing nothing', async (_label, externalId) => {
    const ws = await createWorkspace(ctx.db);
    const res = await upsert(ws.key, { externalId, name: 'Bad Id', phone: '+442079460109' });
    expectRpcFailure(res, 'BAD_REQUEST', 'leads.upsert');
    expect(issuePaths(res)).toEqual([['externalId']]);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it('takes 255 printable characters, spaces and non-Latin text included', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = `crm ${'é'.repeat(248)} 東京`;
    expect(externalId.length).toBe(255);
    expect(resultOf(await upsert(ws.key, { externalId, name: 'Long Id', phone: '+442079460110' }))).toMatchObject({ externalId, created: true });
  });

  it.each([
    [['leads.create', 'leads.read'], 'leads.update'],
    [['leads.update', 'leads.read'], 'leads.create'],
  ])('answers 403 naming the missing scope when the key has only %j, writing nothing', async (scopes, missing) => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes });
    const res = await upsert(key, { externalId: unique('crm'), name: 'No Scope', phone: '+442079460111' });
    expect(expectRpcFailure(res, 'FORBIDDEN', 'leads.upsert').message).toBe(`missing scope: ${missing}`);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });
});

describe('POST leads.upsert (racing calls)', () => {
  it('applies each of 20 concurrent changes of a held id once, each on the version before it: totals and stored JSON exact', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('race');
    resultOf(await upsert(ws.key, { externalId, name: 'Held', phone: '+442079460115' }));
    const statuses = ['CONTACTED', 'NO_ANSWER', 'BUSY', 'QUALIFIED'] as const;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => upsert(ws.key, {
      externalId, name: `Changer ${i}`, phone: '+442079460115', status: statuses[i % 4], notes: `change ${i}`,
    })));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    const results = answers.map((r) => resultOf(r));
    expect(results.every((r) => r.created === false)).toBe(true);
    // Every change replaced its own version: twenty distinct versions, the last of which is stored.
    const versions = results.map((r) => r.updatedAt.getTime()).sort((a, b) => a - b);
    expect(new Set(versions).size).toBe(20);
    const last = results.find((r) => r.updatedAt.getTime() === versions[19])!;
    const { created: _created, ...stored } = last;
    expect(resultOf(await rpcGet(ctx.app, 'leads.getById', { id: last.id }, ws.key))).toEqual(stored);
    const types = await eventTypes(ctx.db, ws.org.id);
    expect(types.filter((t) => t === 'lead.updated')).toHaveLength(20);
    expect(types.filter((t) => t === 'contact.updated')).toHaveLength(20);
    const { rows: counts } = await ctx.db.raw<{ rows: { status: string; n: number }[] }>(
      'select status, sum(n)::int as n from lead_counts where org_id = ? group by status having sum(n) <> 0', [ws.org.id]);
    expect(counts).toEqual([{ status: last.status, n: 1 }]);
    await expectStoredJsonFresh(ws.org.id);
  });

  it('ends 20 concurrent upserts of one id in one lead, one contact and exactly one lead.created (and its one delivery); the rest change it', async () => {
    const ws = await createWorkspace(ctx.db);
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'https://hooks.example/upsert', events: ['lead.created', 'contact.created'] });
    const externalId = unique('race');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => upsert(ws.key, { externalId, name: `Racer ${i}`, phone: '+442079460112' })));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    const results = answers.map((r) => resultOf(r));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.id)).size).toBe(1);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 1, contacts: 1 });
    const types = await eventTypes(ctx.db, ws.org.id);
    expect(types.filter((t) => t === 'lead.created')).toHaveLength(1);
    expect(types.filter((t) => t === 'contact.created')).toHaveLength(1);
    expect(types.filter((t) => t === 'lead.updated')).toHaveLength(19);
    const deliveries = await ctx.db('webhook_deliveries').where({ org_id: ws.org.id }).count({ n: '*' }).first();
    expect(Number(deliveries?.n)).toBe(2);
    const counts = await ctx.db('lead_counts').where({ org_id: ws.org.id }).sum({ n: 'n' }).first();
    expect(Number(counts?.n)).toBe(1);
    await expectStoredJsonFresh(ws.org.id);
  });
});
