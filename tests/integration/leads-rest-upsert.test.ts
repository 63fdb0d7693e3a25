import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { countRows } from '../helpers/leads-procedures-helpers';
import { LEAD_FIELDS, getLeadRest, putLeadByExternalIdRest } from '../helpers/leads-rest';

const ctx = createTestContext();
afterAll(() => ctx.close());

const ETAG = /^"[A-Za-z0-9_-]{22}"$/;

async function eventTypes(orgId: string): Promise<string[]> {
  const rows: { type: string }[] = await ctx.db('events').where({ org_id: orgId }).select('type');
  return rows.map((r) => r.type).sort();
}

describe('PUT /api/v1/leads/external/{externalId}', () => {
  it('answers 201 with the lead, Location and ETag when it creates it, then 200 with a new ETag when it changes it', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('crm');
    const created = await putLeadByExternalIdRest(ctx.app, ws.key, externalId, { name: 'Rest Upsert', phone: '020 7946 0120', notes: 'first' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(LEAD_FIELDS);
    expect(created.body).toMatchObject({ externalId, name: 'Rest Upsert', phones: ['+442079460120'], notes: 'first' });
    expect(created.headers.location).toBe(`/api/v1/leads/${created.body.id}`);
    expect(created.headers.etag).toMatch(ETAG);
    const read = await getLeadRest(ctx.app, ws.key, created.body.id);
    expect([read.body, read.headers.etag]).toEqual([created.body, created.headers.etag]);

    const changed = await putLeadByExternalIdRest(ctx.app, ws.key, externalId, { name: 'Rest Upsert 2', phone: '020 7946 0120' });
    expect(changed.status).toBe(200);
    expect(changed.headers.location).toBeUndefined();
    expect(changed.body).toMatchObject({ id: created.body.id, name: 'Rest Upsert 2', notes: 'first', externalId });
    expect(changed.headers.etag).toMatch(ETAG);
    expect(changed.headers.etag).not.toBe(created.headers.etag);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 1, contacts: 1 });
    expect(await eventTypes(ws.org.id)).toEqual(['contact.created', 'contact.updated', 'lead.created', 'lead.updated']);
  });

  it('decodes the path segment: an id with a slash, spaces and non-Latin text is stored as sent', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = `erp/42 ${unique('東京')}`;
    const res = await putLeadByExternalIdRest(ctx.app, ws.key, externalId, { name: 'Encoded', phone: '+442079460121' });
    expect(res.status).toBe(201);
    expect(res.body.externalId).toBe(externalId);
    const again = await putLeadByExternalIdRest(ctx.app, ws.key, externalId, { name: 'Encoded 2', phone: '+442079460121' });
    expect([again.status, again.body.id]).toEqual([200, res.body.id]);
  });

  it('changes the lead under If-Match with its current ETag; a stale ETag is 412 and nothing is written', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('crm');
    const created = await putLeadByExternalIdRest(ctx.app, ws.key, externalId, { name: 'Matched', phone: '+442079460122' });
    const matched = await putLeadByExternalIdRest(ctx.app, ws.key, externalId, { name: 'Matched 2', phone: '+442079460122' }, { 'If-Match': created.headers.etag as string });
    expect(matched.status).toBe(200);
    const stale = await putLeadByExternalIdRest(ctx.app, ws.key, externalId, { name: 'Lost', phone: '+442079460122' }, { 'If-Match': created.headers.etag as string });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('PRECONDITION_FAILED');
    expect((await getLeadRest(ctx.app, ws.key, created.body.id)).body.name).toBe('Matched 2');
  });

  it.each(['"abc"', '*'])('answers 412 to If-Match %s when no lead holds the id, and creates nothing', async (ifMatch) => {
    const ws = await createWorkspace(ctx.db);
    const res = await putLeadByExternalIdRest(ctx.app, ws.key, unique('crm'), { name: 'Absent', phone: '+442079460123' }, { 'If-Match': ifMatch });
    expect(res.status).toBe(412);
    expect(res.body.error).toEqual({ code: 'PRECONDITION_FAILED', message: expect.stringMatching(/^No lead holds this external id/) });
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it.each([
    ['too long', encodeURIComponent('x'.repeat(256))],
    ['a line break', 'crm%0A1'],
    ['a tab', 'crm%091'],
    ['a NUL', 'crm%001'],
  ])('answers 400 in the REST error body naming externalId when it is %s, writing nothing', async (_label, segment) => {
    const ws = await createWorkspace(ctx.db);
    const res = await putLeadByExternalIdRest(ctx.app, ws.key, segment, { name: 'Bad', phone: '+442079460124' }, {}, true);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(res.body.error.issues.map((i: { path: string[] }) => i.path)).toEqual([['externalId']]);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it('answers 400 naming externalId when the segment is empty, and 400 when it is not valid percent-encoding', async () => {
    const ws = await createWorkspace(ctx.db);
    const empty = await putLeadByExternalIdRest(ctx.app, ws.key, '', { name: 'Empty', phone: '+442079460125' }, {}, true);
    expect(empty.status).toBe(400);
    expect(empty.body.error.issues.map((i: { path: string[] }) => i.path)).toEqual([['externalId']]);
    const malformed = await putLeadByExternalIdRest(ctx.app, ws.key, 'crm%E0%A4%A', { name: 'Bad', phone: '+442079460125' }, {}, true);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('BAD_REQUEST');
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it('refuses externalId and expectedUpdatedAt in the body (the path and If-Match carry them)', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await putLeadByExternalIdRest(ctx.app, ws.key, unique('crm'), { name: 'Body', phone: '+442079460126', externalId: 'other', expectedUpdatedAt: new Date().toISOString() });
    expect(res.status).toBe(400);
    expect(res.body.error.issues.map((i: { path: string[] }) => i.path)).toEqual([['externalId'], ['expectedUpdatedAt']]);
  });

  it('replays the first answer (201, Location) for the same Idempotency-Key and body', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('crm');
    const headers = { 'Idempotency-Key': unique('idem') };
    const first = await putLeadByExternalIdRest(ctx.app, ws.key, externalId, { name: 'Once', phone: '+442079460127' }, headers);
    const replay = await putLeadByExternalIdRest(ctx.app, ws.key, externalId, { name: 'Once', phone: '+442079460127' }, headers);
    expect(first.status).toBe(201);
    expect([replay.status, replay.headers['idempotent-replayed'], replay.headers.location, replay.body]).toEqual([201, 'true', first.headers.location, first.body]);
  });

  it.each([['leads.create'], ['leads.update']])('answers 403 naming %s to a key without it, writing nothing', async (missing) => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read', 'leads.create', 'leads.update'].filter((s) => s !== missing) });
    const res = await putLeadByExternalIdRest(ctx.app, key, unique('crm'), { name: 'Scoped', phone: '+442079460128' });
    expect([res.status, res.body.error]).toEqual([403, { code: 'FORBIDDEN', message: `missing scope: ${missing}` }]);
    expect(await countRows(ctx.db, ws.org.id)).toEqual({ leads: 0, contacts: 0 });
  });

  it('answers 405 naming PUT to other methods on the path', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app).get('/api/v1/leads/external/x').set('Authorization', `Bearer ${ws.key}`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('PUT');
  });
});
