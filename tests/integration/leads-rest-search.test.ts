import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createLead, unique } from '../helpers/factories';
import { bodyOf, idsOf, listLeads } from '../helpers/leads-rest';

const ctx = createTestContext();
afterAll(() => ctx.close());

const sorted = (ids: string[]) => [...ids].sort();

/** A workspace with one lead that does not match the terms below (phone +1 415..., no company). */
async function workspaceWithDecoy() {
  const ws = await createWorkspace(ctx.db);
  const decoy = await createLead(ctx.db, ws.org.id, { name: 'Decoy Person', phones: ['+14155550199'], emails: ['decoy@example.org'] });
  return { ws, decoy };
}

describe('GET /api/v1/leads search', () => {
  it('matches the contact name case-insensitively', async () => {
    const { ws } = await workspaceWithDecoy();
    const tag = unique('Zebedee');
    const lead = await createLead(ctx.db, ws.org.id, { name: `${tag} Quux` });

    const res = await listLeads(ctx.app, ws.key, { search: `${tag.toLowerCase()} QUUX` });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([lead.id]);
    expect(bodyOf(res).pagination.total).toBe(1);
  });

  it('matches any of the contact emails case-insensitively, not only the first', async () => {
    const { ws } = await workspaceWithDecoy();
    const local = unique('ana');
    const lead = await createLead(ctx.db, ws.org.id, { emails: ['first@example.com', `${local}@work.example`] });

    const res = await listLeads(ctx.app, ws.key, { search: `${local.toUpperCase()}@WORK` });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([lead.id]);
  });

  it('matches the company case-insensitively', async () => {
    const { ws } = await workspaceWithDecoy();
    const tag = unique('Initech');
    const lead = await createLead(ctx.db, ws.org.id, { company: `${tag} Holdings` });

    const res = await listLeads(ctx.app, ws.key, { search: `${tag.toUpperCase()} holdings` });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([lead.id]);
  });

  it.each(['2079460123', '+44 20 7946', '020 7946 0123', '+442079460123'])(
    'finds a lead with phone +442079460123 by the fragment %p',
    async (term) => {
      const { ws } = await workspaceWithDecoy();
      const lead = await createLead(ctx.db, ws.org.id, { phones: ['+442079460123'] });

      const res = await listLeads(ctx.app, ws.key, { search: term });

      expect(res.status).toBe(200);
      expect(idsOf(res)).toEqual([lead.id]);
      expect(bodyOf(res).pagination.total).toBe(1);
    },
  );

  it('matches a phone that is not the primary one', async () => {
    const { ws } = await workspaceWithDecoy();
    const lead = await createLead(ctx.db, ws.org.id, { phones: ['+442079460777', '+33142685300'] });

    const res = await listLeads(ctx.app, ws.key, { search: '142685300' });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([lead.id]);
  });

  it("takes '%' literally: '100%' finds '100% Organic' but not '1000 Organic'", async () => {
    const ws = await createWorkspace(ctx.db);
    const percent = await createLead(ctx.db, ws.org.id, { company: '100% Organic' });
    await createLead(ctx.db, ws.org.id, { company: '1000 Organic' });

    const res = await listLeads(ctx.app, ws.key, { search: '100%' });
    const bare = await listLeads(ctx.app, ws.key, { search: '%' });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([percent.id]);
    expect(bodyOf(res).pagination.total).toBe(1);
    expect(idsOf(bare)).toEqual([percent.id]);
  });

  it("takes '_' literally: 'snake_case' finds 'snake_case' but not 'snakeXcase'", async () => {
    const ws = await createWorkspace(ctx.db);
    const underscore = await createLead(ctx.db, ws.org.id, { company: 'snake_case' });
    await createLead(ctx.db, ws.org.id, { company: 'snakeXcase' });

    const res = await listLeads(ctx.app, ws.key, { search: 'snake_case' });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([underscore.id]);
    expect(bodyOf(res).pagination.total).toBe(1);
  });

  it('takes a backslash literally and does not fail on one', async () => {
    const ws = await createWorkspace(ctx.db);
    const slashed = await createLead(ctx.db, ws.org.id, { company: 'C:\\temp Ltd' });
    await createLead(ctx.db, ws.org.id, { company: 'C:temp Ltd' });

    const found = await listLeads(ctx.app, ws.key, { search: ':\\temp' });
    const trailing = await listLeads(ctx.app, ws.key, { search: 'abc\\' });
    const lone = await listLeads(ctx.app, ws.key, { search: '\\' });

    expect(found.status).toBe(200);
    expect(idsOf(found)).toEqual([slashed.id]);
    expect(trailing.status).toBe(200);
    expect(bodyOf(trailing).pagination.total).toBe(0);
    expect(lone.status).toBe(200);
    expect(idsOf(lone)).toEqual([slashed.id]);
  });

  it('treats a blank search of spaces as no filter', async () => {
    const ws = await createWorkspace(ctx.db);
    const ids = [(await createLead(ctx.db, ws.org.id)).id, (await createLead(ctx.db, ws.org.id)).id];

    const res = await listLeads(ctx.app, ws.key, { search: '   ' });

    expect(res.status).toBe(200);
    expect(sorted(idsOf(res))).toEqual(sorted(ids));
    expect(bodyOf(res).pagination.total).toBe(2);
  });

  it('ignores surrounding spaces of a search term', async () => {
    const { ws } = await workspaceWithDecoy();
    const tag = unique('Padded');
    const lead = await createLead(ctx.db, ws.org.id, { name: tag });

    const res = await listLeads(ctx.app, ws.key, { search: `  ${tag}  ` });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([lead.id]);
  });

  it('answers an empty page with total 0 when nothing matches', async () => {
    const { ws } = await workspaceWithDecoy();

    const res = await listLeads(ctx.app, ws.key, { search: unique('nothing') });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      pagination: { page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null },
    });
  });

  it.each(["' OR 1=1 --", "'; drop table leads; --", "x%' OR '1'='1", '") OR ("1"="1'])(
    'answers 200 with no rows for the injection attempt %p and leaves the leads table intact',
    async (term) => {
      const { ws } = await workspaceWithDecoy();
      await createLead(ctx.db, ws.org.id);

      const res = await listLeads(ctx.app, ws.key, { search: term });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: [],
        pagination: { page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null },
      });
      const stored = await ctx.db('leads').where({ org_id: ws.org.id }).count<{ n: string }[]>({ n: '*' });
      expect(Number(stored[0]!.n)).toBe(2);
      const after = await listLeads(ctx.app, ws.key);
      expect(bodyOf(after).pagination.total).toBe(2);
    },
  );

  it('finds a lead whose name itself holds a quote and SQL comment, literally', async () => {
    const { ws } = await workspaceWithDecoy();
    const lead = await createLead(ctx.db, ws.org.id, { name: "O'Brien -- the elder" });

    const res = await listLeads(ctx.app, ws.key, { search: "o'brien --" });

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([lead.id]);
  });

  // A search's statements go as one simple query with their values written in as escaped literals
  // (longStatementRows in src/db/knex.ts): every value must arrive as the text it was.
  it.each([
    ['a placeholder', 'Price $1 and $2'],
    ['a question mark', 'Who? Me?'],
    ['a backslash before a quote', "back\\' slash"],
    ['an E-string prefix', "E'\\x41"],
    ['text beyond ASCII', 'Zoë Ωmega 東京'],
  ])('finds a name holding %s literally, on a first page and on a cursor page', async (_label, name) => {
    const { ws } = await workspaceWithDecoy();
    const created = [];
    for (let i = 0; i < 3; i++) created.push(await createLead(ctx.db, ws.org.id, { name: `${name} ${i}` }));

    const first = await listLeads(ctx.app, ws.key, { search: name, pageSize: '2' });
    expect(first.status).toBe(200);
    expect(bodyOf(first).pagination.total).toBe(3);
    const next = await listLeads(ctx.app, ws.key, { search: name, pageSize: '2', cursor: bodyOf(first).pagination.nextCursor! });
    expect(next.status).toBe(200);
    expect(sorted([...idsOf(first), ...idsOf(next)])).toEqual(sorted(created.map((l) => l.id)));
  });
});
