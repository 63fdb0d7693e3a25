import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { ALL_SCOPES, createKey, createWorkspace } from '../helpers/factories';
import { CSV, NDJSON, importFootprint, sendChunked, uploadImport, validCsv } from '../helpers/imports';

const ctx = createTestContext();
afterAll(() => ctx.close());

let orgId: string;
let key: string;
beforeEach(async () => {
  const ws = await createWorkspace(ctx.db);
  orgId = ws.org.id;
  key = ws.key;
});

const NOTHING = { imports: 0, chunks: 0, errors: 0, contacts: 0, leads: 0 };

describe('POST /api/v1/imports', () => {
  it('answers 202 with the queued import and its Location, and getById reads it', async () => {
    const res = await uploadImport(ctx.app, key, validCsv(3), { type: CSV });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^imp_/), status: 'queued', resource: 'leads', mode: 'create', dryRun: false,
      rows: { total: 3, processed: 0, created: 0, updated: 0, failed: 0 }, failure: null,
      createdAt: expect.any(String), finishedAt: null,
    });
    expect(res.headers.location).toBe(`/api/v1/imports/${res.body.id}`);
    const read = await request(ctx.app).get(res.headers.location!).set('Authorization', `Bearer ${key}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect(await importFootprint(ctx.db, orgId)).toMatchObject({ imports: 1, chunks: 1, leads: 0 });
  });

  it('takes NDJSON, counting its non-blank lines, and CRLF line ends in both formats', async () => {
    const ndjson = '{"name":"A","phone":"+442079460001"}\r\n\r\n{"name":"B","phone":"+442079460002"}\r\n';
    const res = await uploadImport(ctx.app, key, ndjson, { type: `${NDJSON}; charset=utf-8` });
    expect(res.status).toBe(202);
    expect(res.body.rows.total).toBe(2);
    const csv = await uploadImport(ctx.app, key, validCsv(2).replace(/\n/g, '\r\n'), { type: CSV });
    expect(csv.status).toBe(202);
    expect(csv.body.rows.total).toBe(2);
  });

  it('takes a UTF-8 byte-order mark silently, and a header alone as an import of no rows', async () => {
    const bom = await uploadImport(ctx.app, key, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(validCsv(1))]), { type: CSV });
    expect(bom.status).toBe(202);
    expect(bom.body.rows.total).toBe(1);
    const headerOnly = await uploadImport(ctx.app, key, 'name,phone\n', { type: CSV });
    expect(headerOnly.status).toBe(202);
    expect(headerOnly.body.rows.total).toBe(0);
  });

  describe('a file that cannot be read is a 400 naming the line, and leaves nothing behind', () => {
    const cases: [string, string | Buffer, RegExp][] = [
      ['an empty file', '', /empty/],
      ['unbalanced quotes', 'name,phone\n"Ana,+442079460001\nBo,+442079460002\n', /^line 2: .*not closed.*unbalanced quotes/],
      ['a stray quote in a quoted cell', 'name,phone\nAna,"+44"20\n', /^line 2: unbalanced quotes/],
      ['a missing header (data on the first line)', 'Ana,+442079460001\n', /^line 1: unknown column "Ana".*header row.*known columns are name, phone/],
      ['a repeated column', 'name,phone,name\n', /^line 1: the column "name" is named twice/],
      ['an unknown column', 'name,phone,fax\n', /^line 1: unknown column "fax".*; the known columns are name, phone, phones, email/],
      ['a header without phone', 'name,email\n', /^line 1: the header names no "phone" column/],
      ['100,000 columns', `${Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',')}\n`, /^line 1: the header has 100000 columns; it may name at most 12/],
      ['a UTF-16 byte-order mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('n\0a\0m\0e\0', 'latin1')]), /^line 1: the file is UTF-16/],
      ['Latin-1 bytes on line 3', Buffer.concat([Buffer.from('name,phone\nAna,+442079460001\nJos'), Buffer.from([0xe9]), Buffer.from(',+442079460002\n')]), /^line 3: bytes that are not UTF-8/],
      ['a 10 MB cell', `name,phone,notes\nAna,+442079460001,"${'x'.repeat(10 * 1024 * 1024)}"\n`, /^line 2: the row starting here is longer than 1048576 characters/],
    ];
    it.each(cases)('%s', async (_what, body, message) => {
      const res = await uploadImport(ctx.app, key, body, { type: CSV });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'BAD_REQUEST', message: expect.stringMatching(message) } });
      expect(await importFootprint(ctx.db, orgId)).toEqual(NOTHING);
    });

    it('an NDJSON file with no line, or a line over the row limit', async () => {
      for (const [body, message] of [['\n\n', /empty/], [`{"name":"${'x'.repeat(1_100_000)}"}\n`, /^line 1: longer than/]] as const) {
        const res = await uploadImport(ctx.app, key, body, { type: NDJSON });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toMatch(message);
      }
      expect(await importFootprint(ctx.db, orgId)).toEqual(NOTHING);
    });
  });

  it('answers 415 to another content type or a compressed body, and 400 to a bad query', async () => {
    for (const type of ['application/json', 'text/plain', 'text/csv; charset=latin1']) {
      const res = await uploadImport(ctx.app, key, validCsv(1), { type });
      expect(res.status).toBe(415);
      expect(res.body.error).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining('text/csv') });
    }
    const gzip = await uploadImport(ctx.app, key, validCsv(1), { type: CSV, headers: { 'Content-Encoding': 'gzip' } });
    expect(gzip.status).toBe(415);
    const bad = await uploadImport(ctx.app, key, validCsv(1), { type: CSV, query: { resource: 'tasks', mode: 'merge' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues).toEqual([
      { path: ['resource'], message: expect.stringContaining('leads') },
      { path: ['mode'], message: expect.stringContaining('upsert') },
    ]);
    expect(await importFootprint(ctx.db, orgId)).toEqual(NOTHING);
  });

  it('answers 413 to a body declared over the limit, and to one that streams past it, and leaves nothing behind', async () => {
    const declared = await request(ctx.app).post('/api/v1/imports?resource=leads').set('Authorization', `Bearer ${key}`)
      .set('Content-Type', CSV).set('Content-Length', String(101 * 1024 * 1024)).send('name,phone\n');
    expect(declared.status).toBe(413);
    const small = createTestContext({ importMaxBytes: 64 * 1024 });
    try {
      const streamed = await sendChunked(small.app, key, [validCsv(1000), validCsv(1000, { from: 1000 })]);
      expect(streamed.status).toBe(413);
      expect(JSON.parse(streamed.text)).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('larger than') } });
    } finally {
      await small.close();
    }
    expect(await importFootprint(ctx.db, orgId)).toEqual(NOTHING);
  });

  it('answers 403 naming the scope to a key without imports.create or leads.create, and 401 without a key', async () => {
    for (const scope of ['imports.create', 'leads.create']) {
      const { key: narrow } = await createKey(ctx.db, orgId, { scopes: ALL_SCOPES.filter((s) => s !== scope) });
      const res = await uploadImport(ctx.app, narrow, validCsv(1), { type: CSV });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain(scope);
    }
    const { key: noUpdate } = await createKey(ctx.db, orgId, { scopes: ALL_SCOPES.filter((s) => s !== 'leads.update') });
    const upsert = await uploadImport(ctx.app, noUpdate, 'name,phone,externalId\n', { type: CSV, query: { resource: 'leads', mode: 'upsert' } });
    expect(upsert.status).toBe(403);
    expect(upsert.body.error.message).toContain('leads.update');
    expect((await uploadImport(ctx.app, null, validCsv(1), { type: CSV })).status).toBe(401);
    expect(await importFootprint(ctx.db, orgId)).toEqual(NOTHING);
  });

  it("answers 404 to another workspace's import id", async () => {
    const res = await uploadImport(ctx.app, key, validCsv(1), { type: CSV });
    const other = await createWorkspace(ctx.db);
    const read = await request(ctx.app).get(`/api/v1/imports/${res.body.id}`).set('Authorization', `Bearer ${other.key}`);
    expect(read.status).toBe(404);
    const errors = await request(ctx.app).get(`/api/v1/imports/${res.body.id}/errors`).set('Authorization', `Bearer ${other.key}`);
    expect(errors.status).toBe(404);
  });

  it('answers an unknown import id 404 and one too long 400, on the import and on its errors file alike', async () => {
    for (const [id, status, code] of [['not-an-import', 404, 'NOT_FOUND'], [`imp_${'x'.repeat(300)}`, 400, 'BAD_REQUEST']] as const) {
      for (const path of [`/api/v1/imports/${id}`, `/api/v1/imports/${id}/errors`]) {
        const res = await request(ctx.app).get(path).set('Authorization', `Bearer ${key}`);
        expect([path, res.status, res.body.error?.code]).toEqual([path, status, code]);
      }
    }
  });
});
