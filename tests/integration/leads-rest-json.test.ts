import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createMember, createLead } from '../helpers/factories';
import { bodyOf, listLeads, toJsonLead } from '../helpers/leads-rest';
import { rpcPost, errorOf } from '../helpers/rpc';
import * as leads from '../../src/db/leads';

// The REST list sends each lead's JSON as PostgreSQL rendered it when the lead was written
// (src/db/leads/lead-json.ts); everything else reads leads
// through `toLead`. These must never drift apart.
const ctx = createTestContext();
afterAll(() => ctx.close());

const AWKWARD_TEXT = 'He said "hi"\\ then\nleft\t\u0001 — عربى 🚀 \u2028 end';

describe('GET /api/v1/leads renders each lead exactly as the Lead object', () => {
  it('sends every field as toLead does, for awkward text, empty and long arrays, links and boundary dates', async () => {
    const ws = await createWorkspace(ctx.db);
    const member = await createMember(ctx.db, ws.org.id);
    const client = await ctx.db('clients').insert({ org_id: ws.org.id, id: 'cli_json1', name: 'Client' }).returning('id');
    const stored = [
      await createLead(ctx.db, ws.org.id, { name: AWKWARD_TEXT, phones: [], emails: [], notes: AWKWARD_TEXT, source: '' }),
      await createLead(ctx.db, ws.org.id, {
        phones: ['+442079460001', '+442079460002', '+442079460003'],
        emails: ['a@example.com', 'b@example.com'],
        company: 'Acme "Ltd"',
        status: 'QUALIFIED',
        assignedToId: member.id,
        clientId: client[0]!.id as string,
        nextCallAt: new Date('2026-11-23T09:08:07.006Z'),
      }),
      await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('0001-01-01T00:00:00.000Z') }),
      await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('9999-12-31T23:59:59.999Z') }),
      await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('0999-06-15T12:30:00.120Z') }),
    ];
    const expected = await Promise.all(stored.map(async (l) => toJsonLead((await leads.getById(ctx.db, ctx.hotReads, ws.org.id, l.id))!)));

    const res = await listLeads(ctx.app, ws.key, { pageSize: 100 });

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    // Sent in pieces (send-json.ts): the length counts bytes, not UTF-16 units, of all of them.
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    const byId = new Map(bodyOf(res).data.map((l) => [l.id, l]));
    for (const lead of expected) expect(byId.get(lead.id)).toStrictEqual(lead);
    // Field order too: the same JSON text as JSON.stringify of the Lead object.
    expect(JSON.stringify(bodyOf(res).data.find((l) => l.id === stored[1]!.id))).toBe(JSON.stringify(expected[1]));
  });

  it('answers HEAD with the GET answer\'s headers and no body', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id, { name: AWKWARD_TEXT });
    const get = await listLeads(ctx.app, ws.key, { pageSize: 100 });

    const head = await request(ctx.app).head('/api/v1/leads?pageSize=100').set('Authorization', `Bearer ${ws.key}`);

    expect(head.status).toBe(200);
    expect(head.text ?? '').toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });

  it('renders the same leads in cursor mode, and the page wrapper as before', async () => {
    const ws = await createWorkspace(ctx.db);
    for (let i = 0; i < 5; i += 1) await createLead(ctx.db, ws.org.id, { nextCallAt: i % 2 ? new Date(Date.UTC(2027, 0, i + 1)) : null });
    const all = bodyOf(await listLeads(ctx.app, ws.key, { pageSize: 100 })).data;

    const first = bodyOf(await listLeads(ctx.app, ws.key, { pageSize: 3 }));
    const second = bodyOf(await listLeads(ctx.app, ws.key, { pageSize: 3, cursor: (first.pagination as unknown as { nextCursor: string }).nextCursor }));

    expect([...first.data, ...second.data]).toStrictEqual(all);
    expect(second.pagination).toStrictEqual({ page: null, pageSize: 3, total: 5, totalPages: 2, hasNextPage: false, hasPrevPage: true, nextCursor: null });
  });

  it('refuses a Date outside the years 0001-9999 with a 400 naming the field', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcPost(ctx.app, 'leads.create', { name: 'Far', phone: '+442079460001', nextCallAt: new Date('+010000-01-01T00:00:00.000Z') }, ws.key);

    expect(res.status).toBe(400);
    expect(errorOf(res).data.issues).toEqual([{ path: ['nextCallAt'], message: 'expected a date-time between the years 0001 and 9999' }]);
  });
});
