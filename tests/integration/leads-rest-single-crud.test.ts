import { createTestContext } from '../helpers/test-app';
import { createLead, createWorkspace, unique } from '../helpers/factories';
import { storedLead } from '../helpers/leads-procedures-helpers';
import { LEAD_FIELDS, createLeadRest, deleteLeadRest, getLeadRest, patchLeadRest, toJsonLead } from '../helpers/leads-rest';
import * as leads from '../../src/db/leads';
import { rpcPost } from '../helpers/rpc';

const ctx = createTestContext();
afterAll(() => ctx.close());

let orgId: string;
let key: string;
beforeAll(async () => {
  const ws = await createWorkspace(ctx.db);
  orgId = ws.org.id;
  key = ws.key;
});

const ETAG = /^"[A-Za-z0-9_-]{22}"$/;

describe('POST /api/v1/leads', () => {
  it('answers 201 with the lead as plain JSON, its Location and ETag, and the lead is readable there', async () => {
    const name = unique('Rest');
    const res = await createLeadRest(ctx.app, key, { name, phone: '020 7946 0018', email: ' Ann@Example.com ', notes: null });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(LEAD_FIELDS);
    expect(res.body).toMatchObject({ name, phones: ['+442079460018'], emails: ['ann@example.com'], status: 'NOT_CONTACTED', notes: null });
    expect(res.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(res.headers.location).toBe(`/api/v1/leads/${res.body.id}`);
    expect(res.headers.etag).toMatch(ETAG);

    const read = await getLeadRest(ctx.app, key, res.body.id);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect(read.headers.etag).toBe(res.headers.etag);
    expect(await storedLead(ctx.db, orgId, res.body.id)).toBeTruthy();
  });

  it('replays the first answer for the same Idempotency-Key and body: same id, Idempotent-Replayed, one lead stored', async () => {
    const body = { name: unique('Idem'), phone: '+442079460019' };
    const idempotencyKey = unique('idem');
    const first = await createLeadRest(ctx.app, key, body, { 'Idempotency-Key': idempotencyKey });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await createLeadRest(ctx.app, key, body, { 'Idempotency-Key': idempotencyKey });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect([again.headers.location, again.headers.etag]).toEqual([first.headers.location, first.headers.etag]);
    const { rows } = await ctx.db.raw('select count(*)::int as n from leads l join contacts c on c.org_id = l.org_id and c.id = l.contact_id where l.org_id = ? and c.name = ?', [orgId, body.name]);
    expect(rows[0].n).toBe(1);
  });

  it('refuses the key reused with another body with 422, as the action endpoints do', async () => {
    const idempotencyKey = unique('idem');
    expect((await createLeadRest(ctx.app, key, { name: unique('A'), phone: '+442079460020' }, { 'Idempotency-Key': idempotencyKey })).status).toBe(201);
    const res = await createLeadRest(ctx.app, key, { name: unique('B'), phone: '+442079460020' }, { 'Idempotency-Key': idempotencyKey });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({ code: 'UNPROCESSABLE_CONTENT', message: expect.stringContaining('POST /api/v1/leads with a different body') });
  });

  it('never replays an action call made under the same key: the REST call is another request (422)', async () => {
    const idempotencyKey = unique('idem');
    const body = { name: unique('Rpc'), phone: '+442079460021' };
    const first = await rpcPost(ctx.app, 'leads.create', body, key).set('Idempotency-Key', idempotencyKey);
    expect(first.status).toBe(200);
    const res = await createLeadRest(ctx.app, key, body, { 'Idempotency-Key': idempotencyKey });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain('(leads.create)');
  });
});

describe('GET /api/v1/leads/{id}', () => {
  it('answers 200 with the stored lead and a strong quoted ETag', async () => {
    const lead = await createLead(ctx.db, orgId);
    const res = await getLeadRest(ctx.app, key, lead.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(toJsonLead((await leads.getById(ctx.db, ctx.hotReads, orgId, lead.id))!));
    expect(res.headers.etag).toMatch(ETAG);
  });

  it('answers 304 with no body to If-None-Match naming the current ETag, and 200 once the lead changed', async () => {
    const lead = await createLead(ctx.db, orgId);
    const { headers } = await getLeadRest(ctx.app, key, lead.id);
    const same = await getLeadRest(ctx.app, key, lead.id, { 'If-None-Match': `"other", ${headers.etag}` });
    expect(same.status).toBe(304);
    expect(same.text).toBeFalsy();
    expect(same.headers.etag).toBe(headers.etag);
    expect((await patchLeadRest(ctx.app, key, lead.id, { notes: 'changed' })).status).toBe(200);
    const changed = await getLeadRest(ctx.app, key, lead.id, { 'If-None-Match': headers.etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(headers.etag);
  });

  it("answers 404 NOT_FOUND for an unknown id and for another workspace's lead", async () => {
    const other = await createWorkspace(ctx.db);
    const theirs = await createLead(ctx.db, other.org.id);
    for (const id of ['lead_doesNotExist000000', theirs.id]) {
      const res = await getLeadRest(ctx.app, key, id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
  });
});

describe('PATCH /api/v1/leads/{id}', () => {
  it('changes the given fields, leaves absent ones, clears nulls, and answers 200 with the lead and its new ETag', async () => {
    const lead = await createLead(ctx.db, orgId, { source: 'web', notes: 'keep me', company: 'Acme' });
    const res = await patchLeadRest(ctx.app, key, lead.id, { source: null, status: 'CONTACTED' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: lead.id, source: null, status: 'CONTACTED', notes: 'keep me', company: 'Acme' });
    expect(res.headers.etag).toMatch(ETAG);
    const stored = await storedLead(ctx.db, orgId, lead.id);
    expect(stored).toMatchObject({ source: null, status: 'CONTACTED', notes: 'keep me' });
    expect((await getLeadRest(ctx.app, key, lead.id)).headers.etag).toBe(res.headers.etag);
  });

  it('answers 412 PRECONDITION_FAILED to a stale If-Match and writes nothing', async () => {
    const lead = await createLead(ctx.db, orgId, { notes: 'first' });
    const stale = (await getLeadRest(ctx.app, key, lead.id)).headers.etag!;
    expect((await patchLeadRest(ctx.app, key, lead.id, { notes: 'second' }, { 'If-Match': stale })).status).toBe(200);
    const before = await storedLead(ctx.db, orgId, lead.id);
    const res = await patchLeadRest(ctx.app, key, lead.id, { notes: 'third' }, { 'If-Match': stale });
    expect(res.status).toBe(412);
    expect(res.body).toEqual({ error: { code: 'PRECONDITION_FAILED', message: expect.stringMatching(/changed since/) } });
    expect(await storedLead(ctx.db, orgId, lead.id)).toEqual(before);
  });

  it.each(['"not-ours"', 'W/"weak"', 'garbage'])('answers 412 to an If-Match that is not one of our ETags (%s)', async (ifMatch) => {
    const lead = await createLead(ctx.db, orgId, { notes: 'same' });
    const res = await patchLeadRest(ctx.app, key, lead.id, { notes: 'changed' }, { 'If-Match': ifMatch });
    expect(res.status).toBe(412);
    expect((await storedLead(ctx.db, orgId, lead.id)).notes).toBe('same');
  });

  it('answers 200 to the current If-Match (or *)', async () => {
    const lead = await createLead(ctx.db, orgId);
    const { etag } = (await getLeadRest(ctx.app, key, lead.id)).headers;
    const res = await patchLeadRest(ctx.app, key, lead.id, { notes: 'matched' }, { 'If-Match': etag! });
    expect(res.status).toBe(200);
    expect(res.body.notes).toBe('matched');
    expect((await patchLeadRest(ctx.app, key, lead.id, { notes: 'any' }, { 'If-Match': '*' })).status).toBe(200);
  });

  it('replays a keyed update with Idempotent-Replayed and does not write again', async () => {
    const lead = await createLead(ctx.db, orgId);
    const idempotencyKey = unique('idem');
    const first = await patchLeadRest(ctx.app, key, lead.id, { notes: 'once' }, { 'Idempotency-Key': idempotencyKey });
    expect(first.status).toBe(200);
    const again = await patchLeadRest(ctx.app, key, lead.id, { notes: 'once' }, { 'Idempotency-Key': idempotencyKey });
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([200, 'true']);
    expect(again.body).toEqual(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect((await storedLead(ctx.db, orgId, lead.id)).updated_at).toEqual(new Date(first.body.updatedAt));
  });

  it('answers 400 naming id or expectedUpdatedAt when the body carries them', async () => {
    const lead = await createLead(ctx.db, orgId);
    const res = await patchLeadRest(ctx.app, key, lead.id, { id: lead.id, expectedUpdatedAt: new Date().toISOString() });
    expect(res.status).toBe(400);
    expect(res.body.error.issues.map((i: { path: string[] }) => i.path)).toEqual([['id'], ['expectedUpdatedAt']]);
  });

  it("answers 404 for an unknown id and for another workspace's lead, which stays unchanged", async () => {
    const other = await createWorkspace(ctx.db);
    const theirs = await createLead(ctx.db, other.org.id, { notes: 'theirs' });
    for (const id of ['lead_doesNotExist000000', theirs.id]) {
      const res = await patchLeadRest(ctx.app, key, id, { notes: 'mine' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await storedLead(ctx.db, other.org.id, theirs.id)).notes).toBe('theirs');
  });
});

describe('DELETE /api/v1/leads/{id}', () => {
  it('answers 204 with no body, after which GET answers 404', async () => {
    const lead = await createLead(ctx.db, orgId);
    const res = await deleteLeadRest(ctx.app, key, lead.id);
    expect(res.status).toBe(204);
    expect(res.text).toBeFalsy();
    expect(await storedLead(ctx.db, orgId, lead.id)).toBeUndefined();
    expect((await getLeadRest(ctx.app, key, lead.id)).status).toBe(404);
    expect((await deleteLeadRest(ctx.app, key, lead.id)).status).toBe(404);
  });

  it('replays a keyed delete as 204 rather than 404', async () => {
    const lead = await createLead(ctx.db, orgId);
    const idempotencyKey = unique('idem');
    expect((await deleteLeadRest(ctx.app, key, lead.id, { 'Idempotency-Key': idempotencyKey })).status).toBe(204);
    const again = await deleteLeadRest(ctx.app, key, lead.id, { 'Idempotency-Key': idempotencyKey });
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([204, 'true']);
  });

  it("answers 404 for another workspace's lead and leaves it", async () => {
    const other = await createWorkspace(ctx.db);
    const theirs = await createLead(ctx.db, other.org.id);
    const res = await deleteLeadRest(ctx.app, key, theirs.id);
    expect(res.status).toBe(404);
    expect(await storedLead(ctx.db, other.org.id, theirs.id)).toBeTruthy();
  });
});
