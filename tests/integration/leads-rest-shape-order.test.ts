import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createLead, unique } from '../helpers/factories';
import { LEAD_FIELDS, bodyOf, idsOf, listLeads, setCreatedAt, toJsonLead } from '../helpers/leads-rest';

const ctx = createTestContext();
afterAll(() => ctx.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('GET /api/v1/leads response shape', () => {
  it('answers the pagination wrapper with every Lead field filled in, dates as ISO strings in plain JSON', async () => {
    const ws = await createWorkspace(ctx.db);
    const clientId = unique('cli');
    await ctx.db('clients').insert({ org_id: ws.org.id, id: clientId, name: 'Client Ltd' });
    const name = unique('Full Lead');
    const lead = await createLead(ctx.db, ws.org.id, {
      name,
      phones: ['+442079460123', '+14155550100'],
      emails: ['ana@example.com', 'ana.work@example.com'],
      company: 'Acme Ltd',
      source: 'website',
      notes: 'call after lunch',
      status: 'QUALIFIED',
      nextCallAt: new Date('2030-01-02T03:04:05.678Z'),
      assignedToId: ws.member.id,
      clientId,
      externalId: 'crm-full-1',
    });

    const res = await listLeads(ctx.app, ws.key);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'pagination']);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 50, total: 1, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
    const item = bodyOf(res).data[0]!;
    expect(Object.keys(item).sort()).toEqual(LEAD_FIELDS);
    expect(item).toEqual({
      id: lead.id,
      name,
      phones: ['+442079460123', '+14155550100'],
      emails: ['ana@example.com', 'ana.work@example.com'],
      primaryPhone: '+442079460123',
      primaryEmail: 'ana@example.com',
      contactId: lead.contactId,
      company: 'Acme Ltd',
      source: 'website',
      status: 'QUALIFIED',
      notes: 'call after lunch',
      nextCallAt: '2030-01-02T03:04:05.678Z',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      assignedToId: ws.member.id,
      clientId,
      externalId: 'crm-full-1',
    });
    const stored = await ctx.db('leads').where({ org_id: ws.org.id, id: lead.id }).first();
    expect(item.createdAt).toBe((stored.created_at as Date).toISOString());
    expect(item.updatedAt).toBe((stored.updated_at as Date).toISOString());
  });

  it('sends nullable fields as explicit nulls and empty lists as [] when a lead has no email, company or schedule', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { phones: ['+442079460555'] });

    const res = await listLeads(ctx.app, ws.key);

    expect(res.status).toBe(200);
    const item = bodyOf(res).data[0]!;
    expect(Object.keys(item).sort()).toEqual(LEAD_FIELDS);
    expect(item).toEqual(toJsonLead(lead));
    expect(item).toMatchObject({
      emails: [],
      primaryEmail: null,
      primaryPhone: '+442079460555',
      company: null,
      source: null,
      notes: null,
      nextCallAt: null,
      assignedToId: null,
      clientId: null,
      status: 'NOT_CONTACTED',
    });
  });
});

describe('GET /api/v1/leads order', () => {
  it('orders by nextCallAt ascending with unscheduled leads last', async () => {
    const ws = await createWorkspace(ctx.db);
    const unscheduled = await createLead(ctx.db, ws.org.id, { nextCallAt: null });
    const third = await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2030-03-01T00:00:00.000Z') });
    const first = await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2020-01-01T00:00:00.000Z') });
    const second = await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2030-01-01T00:00:00.000Z') });

    const res = await listLeads(ctx.app, ws.key);

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([first.id, second.id, third.id, unscheduled.id]);
    expect(bodyOf(res).data.map((l) => l.nextCallAt)).toEqual([
      '2020-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', '2030-03-01T00:00:00.000Z', null,
    ]);
  });

  it('breaks nextCallAt ties, scheduled and unscheduled alike, by createdAt descending', async () => {
    const ws = await createWorkspace(ctx.db);
    const at = new Date('2031-05-05T10:00:00.000Z');
    const oldScheduled = await createLead(ctx.db, ws.org.id, { nextCallAt: at });
    const newScheduled = await createLead(ctx.db, ws.org.id, { nextCallAt: at });
    const oldNull = await createLead(ctx.db, ws.org.id);
    const newestNull = await createLead(ctx.db, ws.org.id);
    const midNull = await createLead(ctx.db, ws.org.id);
    await setCreatedAt(ctx.db, ws.org.id, oldScheduled.id, new Date('2024-01-01T00:00:00.000Z'));
    await setCreatedAt(ctx.db, ws.org.id, newScheduled.id, new Date('2024-06-01T00:00:00.000Z'));
    await setCreatedAt(ctx.db, ws.org.id, oldNull.id, new Date('2023-01-01T00:00:00.000Z'));
    await setCreatedAt(ctx.db, ws.org.id, newestNull.id, new Date('2025-01-01T00:00:00.000Z'));
    await setCreatedAt(ctx.db, ws.org.id, midNull.id, new Date('2024-01-01T00:00:00.000Z'));

    const res = await listLeads(ctx.app, ws.key);

    expect(res.status).toBe(200);
    expect(idsOf(res)).toEqual([newScheduled.id, oldScheduled.id, newestNull.id, midNull.id, oldNull.id]);
    expect(bodyOf(res).data.map((l) => l.createdAt)).toEqual([
      '2024-06-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z',
      '2025-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', '2023-01-01T00:00:00.000Z',
    ]);
  });

  it('breaks ties of both nextCallAt and createdAt by id descending', async () => {
    const ws = await createWorkspace(ctx.db);
    const createdAt = new Date('2024-02-02T02:02:02.000Z');
    const nextCallAt = new Date('2032-01-01T00:00:00.000Z');
    for (let i = 0; i < 6; i += 1) {
      const lead = await createLead(ctx.db, ws.org.id, { nextCallAt: i < 3 ? nextCallAt : null });
      await setCreatedAt(ctx.db, ws.org.id, lead.id, createdAt);
    }
    // Ids are compared by the database, in its collation: ask it for the expected order.
    const byIdDesc = async (scheduled: boolean) => {
      const q = ctx.db('leads').where({ org_id: ws.org.id }).orderBy('id', 'desc').pluck('id');
      return (scheduled ? q.whereNotNull('next_call_at') : q.whereNull('next_call_at')) as Promise<string[]>;
    };
    const expected = [...(await byIdDesc(true)), ...(await byIdDesc(false))];

    const res = await listLeads(ctx.app, ws.key);
    const secondPage = await listLeads(ctx.app, ws.key, { pageSize: 2, page: 2 });

    expect(res.status).toBe(200);
    expect(expected).toHaveLength(6);
    expect(idsOf(res)).toEqual(expected);
    expect(idsOf(secondPage)).toEqual(expected.slice(2, 4));
  });

  it('keeps the same order on repeated calls, so pages are stable', async () => {
    const ws = await createWorkspace(ctx.db);
    const createdAt = new Date('2024-03-03T00:00:00.000Z');
    for (let i = 0; i < 8; i += 1) {
      const lead = await createLead(ctx.db, ws.org.id);
      await setCreatedAt(ctx.db, ws.org.id, lead.id, createdAt);
    }

    const a = await listLeads(ctx.app, ws.key, { pageSize: 3, page: 2 });
    const b = await listLeads(ctx.app, ws.key, { pageSize: 3, page: 2 });
    const whole = await listLeads(ctx.app, ws.key);

    expect(a.status).toBe(200);
    expect(idsOf(a)).toHaveLength(3);
    expect(idsOf(b)).toEqual(idsOf(a));
    expect(idsOf(a)).toEqual(idsOf(whole).slice(3, 6));
  });
});
