import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createMember, createLead } from '../helpers/factories';
import { bodyOf, listLeads, toJsonLead } from '../helpers/leads-rest';
import { rpcPost, resultOf } from '../helpers/rpc';
import * as leads from '../../src/db/leads';
import { renderLeadJson } from '../../src/db/leads';
import * as contacts from '../../src/db/contacts';
import type { Db } from '../../src/db/knex';
import { seedBulk } from '../../src/cli/seed-bulk';

// The REST list sends each lead's JSON as stored in lead_json by the leads' write unit
// (src/db/leads/writes.ts), in the writing transaction. These pin that every way a lead or its
// contact changes leaves the stored JSON equal to a fresh rendering (renderLeadJson, the one
// renderer) and to the Lead object that every other read answers.
const ctx = createTestContext();
afterAll(() => ctx.close());

/** Stored JSON against a fresh rendering, one row per lead of the workspace. */
async function expectStoredJsonCurrent(orgId: string): Promise<void> {
  const stored = await ctx.db('lead_json').where({ org_id: orgId }).orderBy('lead_id').select('lead_id', 'json');
  const fresh = await renderLeadJson(ctx.db, orgId);
  const leads = await ctx.db('leads').where({ org_id: orgId }).orderBy('id').pluck('id');
  expect(stored.map((r) => r.lead_id)).toEqual(leads);
  expect(stored).toEqual(fresh);
}

/** A second lead of an existing contact (the API makes one contact per lead). */
async function addLeadTo(db: Db, orgId: string, contactId: string): Promise<string> {
  const [id] = await db.transaction((trx) => leads.insertLeads(trx, orgId, [{
    contactId, status: 'NOT_CONTACTED', source: null, notes: null, nextCallAt: null, assignedToId: null, clientId: null,
  }]));
  return id!;
}

/** The REST list's leads against the Lead objects getById answers, field for field. */
async function expectListMatchesLeads(orgId: string, key: string): Promise<void> {
  const listed = bodyOf(await listLeads(ctx.app, key, { pageSize: 100 })).data;
  const expected = await Promise.all(listed.map(async (l) => toJsonLead((await leads.getById(ctx.db, ctx.hotReads, orgId, l.id))!)));
  expect(listed).toStrictEqual(expected);
}

describe('each lead\'s stored JSON follows every write', () => {
  it('follows creates, updates, assignment, calls, conversion, and a contact\'s edits to all its leads', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const created = resultOf<{ id: string; contactId: string }>(
      await rpcPost(ctx.app, 'leads.create', { name: 'Stored Json', phone: '+442079460001', company: 'Before Ltd' }, ws.key),
    );
    // A second lead of the same contact: a contact's edit must reach both.
    await addLeadTo(ctx.db, ws.org.id, created.contactId);
    await expectStoredJsonCurrent(ws.org.id);

    const writes: [string, unknown][] = [
      ['leads.update', { id: created.id, notes: 'a "quoted"\nnote', source: 'web', nextCallAt: new Date('2027-01-02T03:04:05.006Z') }],
      ['leads.assign', { id: created.id, assignedToId: member.id }],
      ['leads.logCall', { id: created.id, outcome: 'NO_ANSWER', nextCallAt: new Date('2027-02-03T04:05:06.007Z') }],
      ['contacts.update', { id: created.contactId, name: 'Renamed Json', phones: ['+442079460999'], emails: ['new@json.example'], company: 'After Ltd' }],
      ['leads.convert', { id: created.id }],
    ];
    for (const [name, input] of writes) {
      const res = await rpcPost(ctx.app, name, input, ws.key);
      expect([name, res.status]).toEqual([name, 200]);
      await expectStoredJsonCurrent(ws.org.id);
    }
    const listed = bodyOf(await listLeads(ctx.app, ws.key, { pageSize: 100 })).data;
    expect(listed.filter((l) => l.contactId === created.contactId).map((l) => [l.name, l.company])).toEqual([
      ['Renamed Json', 'After Ltd'],
      ['Renamed Json', 'After Ltd'],
    ]);
    await expectListMatchesLeads(ws.org.id, ws.key);
  });

  it('follows a deleted client, a deleted lead, and a contact edit its search text hides', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const lead = await createLead(ctx.db, ws.org.id, { assignedToId: member.id });
    const converted = resultOf<{ client: { id: string } }>(await rpcPost(ctx.app, 'leads.convert', { id: lead.id }, ws.key));
    const doomed = await createLead(ctx.db, ws.org.id);

    expect((await rpcPost(ctx.app, 'clients.delete', { id: converted.client.id }, ws.key)).status).toBe(200);
    expect((await rpcPost(ctx.app, 'leads.delete', { id: doomed.id }, ws.key)).status).toBe(200);
    // Last, an edit that leaves the contact's search text as it was (null and '' both search as
    // ''), and changes only its JSON.
    expect((await rpcPost(ctx.app, 'contacts.update', { id: lead.contactId, company: '' }, ws.key)).status).toBe(200);

    await expectStoredJsonCurrent(ws.org.id);
    const [listed] = bodyOf(await listLeads(ctx.app, ws.key, { pageSize: 100 })).data;
    expect(listed).toMatchObject({ id: lead.id, assignedToId: member.id, clientId: null, company: '' });
    await expectListMatchesLeads(ws.org.id, ws.key);
  });

  it('follows a client deleted through clients.delete: its leads lose the link, their JSON and totals stay current', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { status: 'QUALIFIED' });
    const converted = resultOf<{ client: { id: string } }>(await rpcPost(ctx.app, 'leads.convert', { id: lead.id }, ws.key));

    expect((await rpcPost(ctx.app, 'clients.delete', { id: converted.client.id }, ws.key)).status).toBe(200);

    await expectStoredJsonCurrent(ws.org.id);
    expect(bodyOf(await listLeads(ctx.app, ws.key)).data[0]).toMatchObject({ id: lead.id, clientId: null, status: 'CONVERTED' });
    expect(bodyOf(await listLeads(ctx.app, ws.key, { status: 'CONVERTED' })).pagination.total).toBe(1);
  });

  it('follows unlinkClient of the leads module on every lead it changes, and on no other', async () => {
    const ws = await createWorkspace(ctx.db);
    const [member, other] = [await createMember(ctx.db, ws.org.id), await createMember(ctx.db, ws.org.id)];
    const mine = [await createLead(ctx.db, ws.org.id, { assignedToId: member.id }), await createLead(ctx.db, ws.org.id, { assignedToId: member.id, status: 'LOST' })];
    const kept = await createLead(ctx.db, ws.org.id, { assignedToId: other.id });
    const client = resultOf<{ client: { id: string } }>(await rpcPost(ctx.app, 'leads.convert', { id: mine[0]!.id }, ws.key)).client;

    await ctx.db.transaction(async (trx) => {
      await leads.unlinkClient(trx, ws.org.id, client.id);
    });

    await expectStoredJsonCurrent(ws.org.id);
    const listed = bodyOf(await listLeads(ctx.app, ws.key, { pageSize: 100 })).data;
    expect(Object.fromEntries(listed.map((l) => [l.id, [l.assignedToId, l.clientId]]))).toEqual({
      [mine[0]!.id]: [member.id, null], [mine[1]!.id]: [member.id, null], [kept.id]: [other.id, null],
    });
    // Not edited by the API: their updatedAt stays as it was.
    expect(listed.find((l) => l.id === mine[1]!.id)?.updatedAt).toBe(mine[1]!.updatedAt.toISOString());
    expect(bodyOf(await listLeads(ctx.app, ws.key, { assignedToId: member.id })).pagination.total).toBe(2);
  });

  it('keeps the JSON as it was when the write is rolled back', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { name: 'Steady Json' });

    await expect(
      ctx.db.transaction(async (trx) => {
        await leads.updateLead(trx, ws.org.id, lead.id, { person: { name: 'Rolled Back' }, fields: { notes: 'rolled back' } });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');

    await expectStoredJsonCurrent(ws.org.id);
    expect(bodyOf(await listLeads(ctx.app, ws.key)).data[0]).toMatchObject({ name: 'Steady Json', notes: null });
  });

  it('renders leads loaded in bulk, batch by batch', async () => {
    const ws = await createWorkspace(ctx.db);
    await createMember(ctx.db, ws.org.id);

    await seedBulk(ctx.db, { orgId: ws.org.id, leads: 250, batchSize: 100, rebuildIndexes: false });

    await expectStoredJsonCurrent(ws.org.id);
    expect(bodyOf(await listLeads(ctx.app, ws.key, { pageSize: 100 })).pagination.total).toBe(250);
    await expectListMatchesLeads(ws.org.id, ws.key);
  });
});

// Several connections at once: the embedded database serves one.
describe('stored JSON under concurrent writes', () => {
  it('lets a contact\'s edits and updates of its leads run at once without a deadlock', async () => {
    const ws = await createWorkspace(ctx.db);
    const first = await createLead(ctx.db, ws.org.id, { name: 'Busy Contact' });
    const others = [await addLeadTo(ctx.db, ws.org.id, first.contactId), await addLeadTo(ctx.db, ws.org.id, first.contactId)];
    const leadIds = [first.id, ...others].sort();

    // Contact edits (which write their leads' copies and JSON) against transactions that update
    // the same leads one at a time, in id order.
    const contactEdit = (i: number) => ctx.db.transaction(async (trx) => {
      await contacts.lockForUpdate(trx, ws.org.id, first.contactId);
      await contacts.update(trx, ws.org.id, first.contactId, { company: i % 4 === 1 ? '' : null });
    });
    const leadsEdit = (i: number) => ctx.db.transaction(async (trx) => {
      for (const id of leadIds) await leads.updateLead(trx, ws.org.id, id, { fields: { notes: `note ${i}` } });
    });
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => (i % 2 ? contactEdit(i) : leadsEdit(i))));

    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    await expectStoredJsonCurrent(ws.org.id);
  });
});
