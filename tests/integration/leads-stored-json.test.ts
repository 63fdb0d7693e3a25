import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createMember, createLead } from '../helpers/factories';
import { bodyOf, listLeads, toJsonLead } from '../helpers/leads-rest';
import { rpcPost, resultOf } from '../helpers/rpc';
import * as leadsQueries from '../../src/db/queries/leads.queries';
import { seedBulk } from '../../src/cli/seed-bulk';

// The REST list sends each lead's JSON as stored in lead_json by triggers, in the writing
// transaction (migration 20261205120000_store_lead_json). These pin that every way a lead or its
// contact changes leaves the stored JSON equal to a fresh rendering (the view lead_json_render)
// and to the Lead object that every other read answers.
const ctx = createTestContext();
afterAll(() => ctx.close());

/** Stored JSON against a fresh rendering, one row per lead of the workspace. */
async function expectStoredJsonCurrent(orgId: string): Promise<void> {
  const stored = await ctx.db('lead_json').where({ org_id: orgId }).orderBy('lead_id').select('lead_id', 'json');
  const fresh = await ctx.db('lead_json_render').where({ org_id: orgId }).orderBy('lead_id').select('lead_id', 'json');
  const leads = await ctx.db('leads').where({ org_id: orgId }).orderBy('id').pluck('id');
  expect(stored.map((r) => r.lead_id)).toEqual(leads);
  expect(stored).toEqual(fresh);
}

/** The REST list's leads against the Lead objects getById answers, field for field. */
async function expectListMatchesLeads(orgId: string, key: string): Promise<void> {
  const listed = bodyOf(await listLeads(ctx.app, key, { pageSize: 100 })).data;
  const expected = await Promise.all(listed.map(async (l) => toJsonLead((await leadsQueries.getById(ctx.db, orgId, l.id))!)));
  expect(listed).toStrictEqual(expected);
}

describe('each lead\'s stored JSON follows every write', () => {
  it('follows creates, updates, assignment, calls, conversion, and a contact\'s edits to all its leads', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const created = resultOf<{ id: string; contactId: string }>(
      await rpcPost(ctx.app, 'leads.create', { name: 'Stored Json', phone: '+442079460001', company: 'Before Ltd' }, ws.key),
    );
    const sibling = await createLead(ctx.db, ws.org.id);
    // A second lead of the same contact: a contact's edit must reach both.
    await ctx.db('leads').where({ org_id: ws.org.id, id: sibling.id }).update({ contact_id: created.contactId });
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

  it('follows the database\'s own writes: a deleted member or client set to null, a deleted lead, and a contact edit its search text hides', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const lead = await createLead(ctx.db, ws.org.id, { assignedToId: member.id });
    const converted = resultOf<{ client: { id: string } }>(await rpcPost(ctx.app, 'leads.convert', { id: lead.id }, ws.key));
    const doomed = await createLead(ctx.db, ws.org.id);

    await ctx.db('org_members').where({ org_id: ws.org.id, id: member.id }).delete();
    expect((await rpcPost(ctx.app, 'clients.delete', { id: converted.client.id }, ws.key)).status).toBe(200);
    expect((await rpcPost(ctx.app, 'leads.delete', { id: doomed.id }, ws.key)).status).toBe(200);
    // Last, an edit that leaves the contact's search text as it was (null and '' both search as
    // ''), so no update of its leads passes it on: only the contact's own trigger can.
    await ctx.db('contacts').where({ org_id: ws.org.id, id: lead.contactId }).update({ company: '' });

    await expectStoredJsonCurrent(ws.org.id);
    const [listed] = bodyOf(await listLeads(ctx.app, ws.key, { pageSize: 100 })).data;
    expect(listed).toMatchObject({ id: lead.id, assignedToId: null, clientId: null, company: '' });
    await expectListMatchesLeads(ws.org.id, ws.key);
  });

  it('keeps the JSON as it was when the write is rolled back', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { name: 'Steady Json' });

    await expect(
      ctx.db.transaction(async (trx) => {
        await trx('contacts').where({ org_id: ws.org.id, id: lead.contactId }).update({ name: 'Rolled Back' });
        await trx('leads').where({ org_id: ws.org.id, id: lead.id }).update({ notes: 'rolled back' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');

    await expectStoredJsonCurrent(ws.org.id);
    expect(bodyOf(await listLeads(ctx.app, ws.key)).data[0]).toMatchObject({ name: 'Steady Json', notes: null });
  });

  it('renders leads loaded in bulk with their contacts in one statement', async () => {
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
    const others = [await createLead(ctx.db, ws.org.id), await createLead(ctx.db, ws.org.id), await createLead(ctx.db, ws.org.id)];
    await ctx.db('leads').where({ org_id: ws.org.id }).whereIn('id', others.map((l) => l.id)).update({ contact_id: first.contactId });

    const leadIds = [first.id, ...others.map((l) => l.id)].sort();

    // Contact edits that leave its search text as it was (so only its own trigger writes the
    // JSON), against transactions that update the same leads one statement at a time.
    const contactEdit = (i: number) => ctx.db('contacts').where({ org_id: ws.org.id, id: first.contactId }).update({ company: i % 4 === 1 ? '' : null });
    const leadsEdit = (i: number) => ctx.db.transaction(async (trx) => {
      for (const id of leadIds) await trx('leads').where({ org_id: ws.org.id, id }).update({ notes: `note ${i}` });
    });
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => (i % 2 ? contactEdit(i) : leadsEdit(i))));

    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    await expectStoredJsonCurrent(ws.org.id);
  });
});
