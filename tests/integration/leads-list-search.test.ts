import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createLead } from '../helpers/factories';
import { idsOf, listLeads } from '../helpers/leads-rest';

const ctx = createTestContext();
afterAll(() => ctx.close());

// The indexed search column joins the contact's fields; these pin that a match still lies
// within one field (as before the index), and emails/phones joined by spaces as before.
describe('GET /api/v1/leads search on the indexed search text', () => {
  it('does not match a term that spans the name and the company', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id, { name: 'Quillon', company: 'Brastow' });

    const res = await listLeads(ctx.app, ws.key, { search: 'Quillon Brastow' });
    const across = await listLeads(ctx.app, ws.key, { search: 'lonBra' });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([]);
    expect(idsOf(across)).toEqual([]);
  });

  it('matches a term spanning two emails joined by a space, as the per-field search did', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { emails: ['first@one.example', 'second@two.example'] });

    const res = await listLeads(ctx.app, ws.key, { search: 'one.example second@' });

    expect(idsOf(res)).toEqual([lead.id]);
  });

  it('answers 200 for a term holding the unit separator, checking each field', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { name: 'Sep\u001fName' });
    await createLead(ctx.db, ws.org.id, { name: 'Sep', company: 'Name' });

    const res = await listLeads(ctx.app, ws.key, { search: 'Sep\u001fName' });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([lead.id]);
  });

  it('finds a lead by a short (two-character) term', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { name: 'Xq Person' });

    const res = await listLeads(ctx.app, ws.key, { search: 'xQ' });

    expect(idsOf(res)).toEqual([lead.id]);
  });
});
