import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createKey, createLead } from '../helpers/factories';
import { generateApiKeySecret } from '../../src/domain/api-key-secret';
import * as apiKeysQueries from '../../src/db/api-keys';
import { listLeads } from '../helpers/leads-rest';

const ctx = createTestContext();
afterAll(() => ctx.close());

/** The REST error body of a 400 with exactly one field issue. */
function expectBadRequest(res: request.Response, path: (string | number)[], issue: RegExp, message: RegExp) {
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(res.body.error).toEqual({
    code: 'BAD_REQUEST',
    message: expect.stringMatching(message),
    issues: [{ path, message: expect.stringMatching(issue) }],
  });
}

describe('GET /api/v1/leads invalid query', () => {
  let key: string;
  beforeAll(async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id);
    key = ws.key;
  });

  it.each(['0', '-1'])('answers 400 naming page when page=%s is below 1', async (page) => {
    const res = await listLeads(ctx.app, key, `page=${page}`);
    expectBadRequest(res, ['page'], /^expected a whole number from 1 to 10000000, got the number -?[01]$/, /^Invalid input: page: expected a whole number from 1 /);
  });

  it.each(['1.5', 'abc', ''])('answers 400 saying page must be a whole number for page=%p', async (page) => {
    const res = await listLeads(ctx.app, key, `page=${page}`);
    expectBadRequest(res, ['page'], /^expected a whole number, e\.g\. 2, got /, /^Invalid input: page: expected a whole number, e\.g\. 2, got (empty text|"[^"]*")$/);
  });

  it('answers 400 naming pageSize when pageSize=0', async () => {
    const res = await listLeads(ctx.app, key, 'pageSize=0');
    expectBadRequest(res, ['pageSize'], /^expected a whole number of at least 1 \(above 100 reads as 100\), got the number 0$/, /^Invalid input: pageSize: expected a whole number of at least 1/);
  });

  it.each(['abc', '2.5', '-3'])('answers 400 naming pageSize for pageSize=%p', async (pageSize) => {
    const res = await listLeads(ctx.app, key, `pageSize=${pageSize}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^Invalid input: pageSize: /) });
    expect(res.body.error.issues).toEqual([{ path: ['pageSize'], message: expect.any(String) }]);
  });

  it('answers 400 rather than 500 for a page number too large to be an offset', async () => {
    const res = await listLeads(ctx.app, key, 'page=99999999999999999999');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^Invalid input: page: expected a whole number from 1 to 10000000, got /) });
    expect(res.body.error.issues.map((i: { path: unknown }) => i.path)).toContainEqual(['page']);
  });

  it('answers 400 listing the valid statuses for an unknown status', async () => {
    const res = await listLeads(ctx.app, key, { status: 'NEW' });
    expectBadRequest(res, ['status'], /^expected one of NOT_CONTACTED, .*WRONG_NUMBER, got "NEW"$/, /^Invalid input: status: expected one of .*CONTACTED/);
  });

  it('answers 400 for a status in the wrong case', async () => {
    const res = await listLeads(ctx.app, key, { status: 'contacted' });
    expectBadRequest(res, ['status'], /expected one of/, /^Invalid input: status: /);
  });

  it('answers 400 naming an unknown query parameter such as pagesize', async () => {
    const res = await listLeads(ctx.app, key, 'pagesize=10');
    expectBadRequest(res, ['pagesize'], /^unknown field; expected only the fields status, search, assignedToId, externalId, cursor, page, pageSize$/, /^Invalid input: pagesize: unknown field; /);
  });

  it('answers 400 naming status when the parameter is repeated', async () => {
    const res = await listLeads(ctx.app, key, 'status=CONTACTED&status=LOST');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^Invalid input: status: /) });
    expect(res.body.error.issues).toEqual([{ path: ['status'], message: 'give this parameter once' }]);
  });

  it('answers 400 naming page when page is repeated', async () => {
    const res = await listLeads(ctx.app, key, 'page=1&page=2');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^Invalid input: page: /) });
    expect(res.body.error.issues).toEqual([{ path: ['page'], message: expect.any(String) }]);
  });

  it('answers 400 naming search when it holds a NUL character', async () => {
    const res = await listLeads(ctx.app, key, 'search=a%00b');
    expectBadRequest(res, ['search'], /NUL/, /^Invalid input: search: expected text without the NUL character \(\\u0000\)$/);
  });

  it('answers 400 naming search when it is longer than 200 characters', async () => {
    const res = await listLeads(ctx.app, key, { search: 'x'.repeat(201) });
    expectBadRequest(res, ['search'], /200/, /^Invalid input: search: /);
  });
});

describe('GET /api/v1/leads authentication and scope', () => {
  it('answers 401 UNAUTHORIZED in the REST body when there is no Authorization header', async () => {
    const res = await listLeads(ctx.app, null);

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.stringMatching(/Authorization/) } });
  });

  it('answers 401 before validating the query when there is no Authorization header', async () => {
    const res = await listLeads(ctx.app, null, 'page=0&status=NEW');

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it.each([
    ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['a malformed key', 'Bearer not-a-key'],
    ['a key whose checksum is wrong', `Bearer wsk_${'A'.repeat(40)}`],
    ['a valid-looking key that was never issued', `Bearer ${generateApiKeySecret().secret}`],
  ])('answers 401 UNAUTHORIZED for %s', async (_label, header) => {
    const res = await request(ctx.app).get('/api/v1/leads').set('Authorization', header);

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  it('answers 401 when the key is sent only as a cookie', async () => {
    const ws = await createWorkspace(ctx.db);

    const res = await request(ctx.app).get('/api/v1/leads').set('Cookie', `token=${ws.key}; apiKey=${ws.key}`);

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 403 naming leads.read when the key lacks that scope, before validating the query', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.create', 'leads.update'] });

    const res = await listLeads(ctx.app, key);
    const invalid = await listLeads(ctx.app, key, 'page=0');

    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringMatching(/missing scope: leads\.read/) } });
    expect(invalid.status).toBe(403);
    expect(invalid.body.error.message).toMatch(/missing scope: leads\.read/);
  });

  it.each(['FREE', 'PRO'] as const)(
    'answers 200 with the leads for a %s-tier workspace key with leads.read (the tier rule is for action endpoints only)',
    async (tier) => {
      const ws = await createWorkspace(ctx.db, { tier });
      const lead = await createLead(ctx.db, ws.org.id);
      const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });

      const res = await listLeads(ctx.app, key);

      expect(res.status).toBe(200);
      expect(res.body.data.map((l: { id: string }) => l.id)).toEqual([lead.id]);
      expect(res.body.pagination.total).toBe(1);
    },
  );

  it('answers 401 naming revocation for a revoked key', async () => {
    const ws = await createWorkspace(ctx.db);
    const revoked = await apiKeysQueries.revoke(ctx.db, ws.keyId);
    expect(revoked?.revokedAt).toBeInstanceOf(Date);

    const res = await listLeads(ctx.app, ws.key);

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/) } });
  });

  it('answers 401 within a second once a key that was just used is revoked', async () => {
    const ws = await createWorkspace(ctx.db);
    expect((await listLeads(ctx.app, ws.key)).status).toBe(200);

    await apiKeysQueries.revoke(ctx.db, ws.keyId);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await listLeads(ctx.app, ws.key);

    expect(res.status).toBe(401);
    expect(res.body.error).toEqual({ code: 'UNAUTHORIZED', message: expect.stringMatching(/revoked/) });
  });

  it('answers 401 naming expiry for an expired key', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'], expiresAt: new Date(Date.now() - 1000) });

    const res = await listLeads(ctx.app, key);

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.stringMatching(/expired/) } });
  });
});
