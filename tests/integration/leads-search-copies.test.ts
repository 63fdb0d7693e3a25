import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createLead } from '../helpers/factories';
import { bodyOf, idsOf, listLeads } from '../helpers/leads-rest';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import * as contacts from '../../src/db/contacts';

const ctx = createTestContext();
afterAll(() => ctx.close());

// A lead search reads the copy of its contact's search text that each lead carries (migration
// 20261203120000_copy_contact_search_to_leads), written by the leads' data module. These pin that
// the copy follows the contact in the writing transaction, and that matching the lower-cased copy
// answers what ILIKE did.
describe('lead search on the copies of contact search text', () => {
  it('finds a lead by its contact\'s new name, phone and email at once, and no longer by the old ones', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { name: 'Oldname Vantrell', phones: ['+442079461111'], emails: ['old@vantrell.example'] });

    const update = await rpcPost(ctx.app, 'contacts.update', {
      id: lead.contactId, name: 'Newname Vantrell', phones: ['+442079460222'], emails: ['new@vantrell.example'],
    }, ws.key);
    expect(update.status).toBe(200);

    for (const term of ['Newname', '020 7946 0222', '+44207946022', 'new@vantrell']) {
      const res = await listLeads(ctx.app, ws.key, { search: term });
      expect([term, idsOf(res), bodyOf(res).pagination.total]).toEqual([term, [lead.id], 1]);
    }
    for (const term of ['Oldname', '7946 1111', 'old@vantrell']) {
      const res = await listLeads(ctx.app, ws.key, { search: term });
      expect([term, idsOf(res), bodyOf(res).pagination.total]).toEqual([term, [], 0]);
    }
  });

  it('matches letters of any case as the contacts list\'s ILIKE does, accented ones included', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { name: 'ÉLODIE Größer', company: 'Ǆemal Ltd' });
    await createLead(ctx.db, ws.org.id, { name: 'Elodie Grosser' });

    for (const term of ['élodie', 'Élodie', 'ÉLODIE', 'größer', 'GRÖẞER', 'ǆemal', 'ǅemal', 'elodie']) {
      const leads = await listLeads(ctx.app, ws.key, { search: term });
      const contacts = await rpcGet(ctx.app, 'contacts.getAll', { search: term }, ws.key);
      const contactIds = resultOf<{ data: { id: string }[] }>(contacts).data.map((c) => c.id).sort();
      // The same contacts as the contacts list finds, which still matches with ILIKE on the contact itself.
      expect([term, bodyOf(leads).data.map((l) => l.contactId).sort()]).toEqual([term, contactIds]);
    }
    expect(idsOf(await listLeads(ctx.app, ws.key, { search: 'élodie' }))).toEqual([lead.id]);
  });

  it('finds a lead by its contact\'s new name after leads.update changes the person fields', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { name: 'Before Quillfeather' });

    expect((await rpcPost(ctx.app, 'leads.update', { id: lead.id, name: 'After Quillfeather', company: 'Inkwell Ltd' }, ws.key)).status).toBe(200);

    expect(idsOf(await listLeads(ctx.app, ws.key, { search: 'after quill' }))).toEqual([lead.id]);
    expect(idsOf(await listLeads(ctx.app, ws.key, { search: 'inkwell' }))).toEqual([lead.id]);
    expect(idsOf(await listLeads(ctx.app, ws.key, { search: 'before quill' }))).toEqual([]);
  });

  it('leaves the copy as it was when the contact update is rolled back', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { name: 'Steadfast Original' });

    await expect(
      ctx.db.transaction(async (trx) => {
        await contacts.update(trx, ws.org.id, lead.contactId, { name: 'Rolledback Name' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');

    expect(idsOf(await listLeads(ctx.app, ws.key, { search: 'steadfast' }))).toEqual([lead.id]);
    expect(idsOf(await listLeads(ctx.app, ws.key, { search: 'rolledback' }))).toEqual([]);
  });
});
