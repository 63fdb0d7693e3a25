import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createMember, createKey, createLead } from '../helpers/factories';
import { bodyOf, listLeads, setCreatedAt, type JsonLead } from '../helpers/leads-rest';
import { csvRecords, exportLeads, exportText, ndjsonLeads, parseCsv } from '../helpers/leads-export';
import { memoryLimiter, rateLimitOf } from '../helpers/rate-limit';
import { portOf } from '../helpers/raw-socket';

const ctx = createTestContext();
afterAll(() => ctx.close());

const FIELDS = [
  'id', 'name', 'phones', 'emails', 'primaryPhone', 'primaryEmail', 'company', 'contactId', 'source', 'status', 'notes',
  'nextCallAt', 'createdAt', 'updatedAt', 'assignedToId', 'clientId', 'externalId',
];

/** Every lead the REST list answers for `query`, page by page (100 a page), and its total. */
async function listAll(key: string, query: Record<string, string> = {}): Promise<{ leads: JsonLead[]; total: number; text: string }> {
  const leads: JsonLead[] = [];
  let text = '';
  let total = 0;
  for (let page = 1; ; page++) {
    const res = await listLeads(ctx.app, key, { ...query, pageSize: 100, page });
    expect(res.status).toBe(200);
    leads.push(...bodyOf(res).data);
    text += res.text;
    total = bodyOf(res).pagination.total;
    if (!bodyOf(res).pagination.hasNextPage) return { leads, total, text };
  }
}

/** The CSV cell the export writes for a Lead field's value: lists joined by `;`, null empty, typed text guarded. */
function csvCell(lead: JsonLead, field: string): string {
  const value = (lead as unknown as Record<string, unknown>)[field];
  if (value === null) return '';
  const text = Array.isArray(value) ? value.join(';') : String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** A workspace of 7 leads with ties in the list's order, statuses, assignees and searchable names. */
async function variedWorkspace() {
  const ws = await createWorkspace(ctx.db);
  const other = await createMember(ctx.db, ws.org.id);
  const at = new Date('2031-05-01T10:00:00.123Z');
  const made = [
    await createLead(ctx.db, ws.org.id, { name: 'Ada Quill', status: 'CONTACTED', nextCallAt: at, assignedToId: ws.member.id, emails: ['ada@example.com', 'a2@example.com'], company: 'Acme' }),
    await createLead(ctx.db, ws.org.id, { name: 'Bo Quill', status: 'CONTACTED', nextCallAt: at, assignedToId: other.id, phones: ['+442079460001', '+442079460002'] }),
    await createLead(ctx.db, ws.org.id, { name: 'Cy Stone', status: 'QUALIFIED', nextCallAt: new Date('2030-01-01T00:00:00Z'), source: 'fair', notes: 'met at the fair' }),
    await createLead(ctx.db, ws.org.id, { name: 'Di Stone', status: 'LOST' }),
    await createLead(ctx.db, ws.org.id, { name: 'Ed Quill', status: 'NOT_CONTACTED', assignedToId: ws.member.id }),
    await createLead(ctx.db, ws.org.id, { name: 'Fi Marsh', status: 'NOT_CONTACTED' }),
    await createLead(ctx.db, ws.org.id, { name: 'Gu Marsh', status: 'CONTACTED', assignedToId: other.id }),
  ];
  // Ties: two leads with one next call and one created_at, told apart by id alone.
  const tie = new Date('2026-01-01T00:00:00Z');
  await setCreatedAt(ctx.db, ws.org.id, made[0]!.id, tie);
  await setCreatedAt(ctx.db, ws.org.id, made[1]!.id, tie);
  await setCreatedAt(ctx.db, ws.org.id, made[3]!.id, tie);
  await setCreatedAt(ctx.db, ws.org.id, made[5]!.id, tie);
  return { ws, other };
}

describe('GET /api/v1/leads/export formats', () => {
  let ws: Awaited<ReturnType<typeof variedWorkspace>>['ws'];
  beforeAll(async () => {
    ({ ws } = await variedWorkspace());
  });

  it('answers NDJSON: each line the very JSON the REST list writes for that lead, in the list\'s order, as many as its total', async () => {
    const res = await exportLeads(ctx.app, ws.key, { format: 'ndjson' });
    const list = await listAll(ws.key);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="leads-\d{4}-\d{2}-\d{2}\.ndjson"$/);
    const lines = exportText(res).slice(0, -1).split('\n');
    expect(lines).toHaveLength(list.total);
    for (const line of lines) expect(list.text).toContain(line);
    expect(ndjsonLeads(exportText(res))).toEqual(list.leads);
  });

  it('answers CSV: a header of the Lead\'s fields, then one row per lead in the list\'s order, lists joined by ";", nulls empty, ISO timestamps', async () => {
    const res = await exportLeads(ctx.app, ws.key, { format: 'csv' });
    const list = await listAll(ws.key);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="leads-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = parseCsv(exportText(res));
    expect(rows[0]!.cells).toEqual(FIELDS);
    expect(rows).toHaveLength(list.total + 1);
    expect(csvRecords(exportText(res))).toEqual(list.leads.map((lead) => Object.fromEntries(FIELDS.map((f) => [f, csvCell(lead, f)]))));
    const ada = csvRecords(exportText(res)).find((r) => r.name === 'Ada Quill')!;
    expect(ada).toMatchObject({ emails: 'ada@example.com;a2@example.com', primaryEmail: 'ada@example.com', nextCallAt: '2031-05-01T10:00:00.123Z', clientId: '', source: '' });
  });

  it('answers CSV when no format is given', async () => {
    const res = await exportLeads(ctx.app, ws.key);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  });

  it('answers only the header row in CSV, and an empty body in NDJSON, for a workspace without leads', async () => {
    const empty = await createWorkspace(ctx.db);
    const csv = await exportLeads(ctx.app, empty.key, { format: 'csv' });
    const ndjson = await exportLeads(ctx.app, empty.key, { format: 'ndjson' });
    expect([csv.status, ndjson.status]).toEqual([200, 200]);
    expect(exportText(csv)).toBe(`${FIELDS.join(',')}\n`);
    expect(exportText(ndjson)).toBe('');
  });

  it('answers only the caller\'s workspace\'s leads', async () => {
    const other = await createWorkspace(ctx.db);
    const theirs = await createLead(ctx.db, other.org.id);
    const res = await exportLeads(ctx.app, ws.key, { format: 'ndjson' });
    expect(ndjsonLeads(exportText(res)).map((l) => l.id)).not.toContain(theirs.id);
    expect(ndjsonLeads(exportText(res))).toHaveLength(7);
  });
});

describe('GET /api/v1/leads/export filters', () => {
  let ws: Awaited<ReturnType<typeof variedWorkspace>>['ws'];
  let other: Awaited<ReturnType<typeof variedWorkspace>>['other'];
  beforeAll(async () => {
    ({ ws, other } = await variedWorkspace());
  });

  const filters = (): Record<string, string>[] => [
    { status: 'CONTACTED' },
    { status: 'WRONG_NUMBER' },
    { assignedToId: ws.member.id },
    { assignedToId: 'unassigned' },
    { assignedToId: other.id, status: 'CONTACTED' },
    { search: 'quill' },
    { search: 'stone', status: 'LOST' },
  ];

  it.each([0, 1, 2, 3, 4, 5, 6])('answers the REST list\'s leads, order and total for filter set %i, in both formats', async (i) => {
    const query = filters()[i]!;
    const list = await listAll(ws.key, query);
    const ndjson = await exportLeads(ctx.app, ws.key, { ...query, format: 'ndjson' });
    const csv = await exportLeads(ctx.app, ws.key, { ...query, format: 'csv' });

    expect([ndjson.status, csv.status]).toEqual([200, 200]);
    expect(ndjsonLeads(exportText(ndjson))).toEqual(list.leads);
    expect(csvRecords(exportText(csv)).map((r) => r.id)).toEqual(list.leads.map((l) => l.id));
    expect(ndjsonLeads(exportText(ndjson))).toHaveLength(list.total);
  });
});

describe('GET /api/v1/leads/export values', () => {
  const awkward = [
    'back\\slash \\n \\u0041 and "quotes", commas',
    'line one\nline two\r\nthree',
    'tab\tinside; semicolon',
    'ünïcödé 中文 emoji 😀 and \u2028 separator',
    "it's '",
  ];

  it('round-trips backslashes, quotes, newlines, tabs and unicode in names, companies and notes exactly, in both formats', async () => {
    const ws = await createWorkspace(ctx.db);
    for (const text of awkward) await createLead(ctx.db, ws.org.id, { name: `N ${text}`, company: `C ${text}`, notes: text, source: text });
    const list = await listAll(ws.key);

    const ndjson = ndjsonLeads(exportText(await exportLeads(ctx.app, ws.key, { format: 'ndjson' })));
    const csv = csvRecords(exportText(await exportLeads(ctx.app, ws.key, { format: 'csv' })));

    expect(ndjson).toEqual(list.leads);
    expect(new Set(ndjson.map((l) => l.notes))).toEqual(new Set(awkward));
    expect(csv.map((r) => r.notes)).toEqual(list.leads.map((l) => l.notes));
    expect(csv.map((r) => r.name)).toEqual(list.leads.map((l) => l.name));
    expect(csv.map((r) => r.company)).toEqual(list.leads.map((l) => l.company));
  });

  it.each(['=', '+', '-', '@', '\t', '\r'])('writes a CSV cell beginning with %j quoted and after a single quote, so a spreadsheet shows it as text', async (first) => {
    const ws = await createWorkspace(ctx.db);
    const formula = `${first}HYPERLINK("http://evil.example","x")`;
    await createLead(ctx.db, ws.org.id, { name: formula, company: formula, notes: formula, source: formula, emails: [`${first}x@example.com`] });

    const text = exportText(await exportLeads(ctx.app, ws.key, { format: 'csv' }));
    const [header, row] = parseCsv(text);
    const cell = (field: string) => ({ value: row!.cells[header!.cells.indexOf(field)], quoted: row!.quoted[header!.cells.indexOf(field)] });

    for (const field of ['name', 'company', 'notes', 'source']) expect(cell(field)).toEqual({ value: `'${formula}`, quoted: true });
    expect(cell('emails')).toEqual({ value: `'${first}x@example.com`, quoted: true });
    expect(cell('primaryEmail')).toEqual({ value: `'${first}x@example.com`, quoted: true });
    // The NDJSON keeps the value as it is: it is no spreadsheet's.
    expect(ndjsonLeads(exportText(await exportLeads(ctx.app, ws.key, { format: 'ndjson' })))[0]!.name).toBe(formula);
  });

  it('guards E.164 phones too (they begin with "+"), and leaves cells with a harmless first character as they are', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id, { name: 'Plain Name', phones: ['+442079460000', '+442079460001'], company: "'quoted already" });

    const [record] = csvRecords(exportText(await exportLeads(ctx.app, ws.key, { format: 'csv' })));

    expect(record).toMatchObject({ name: 'Plain Name', phones: "'+442079460000;+442079460001", primaryPhone: "'+442079460000", company: "'quoted already" });
  });
});

describe('GET /api/v1/leads/export compression', () => {
  let key: string;
  beforeAll(async () => {
    const ws = await createWorkspace(ctx.db);
    for (let i = 0; i < 5; i++) await createLead(ctx.db, ws.org.id, { notes: `note ${i} ${'x'.repeat(200)}` });
    key = ws.key;
  });

  /** The raw answer (no client-side decoding) for an Accept-Encoding, or none. */
  function rawExport(acceptEncoding: string | undefined): Promise<{ headers: Record<string, unknown>; body: Buffer }> {
    const server = ctx.app.listen(0, '127.0.0.1');
    return new Promise((resolve, reject) => {
      server.once('listening', () => {
        const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
        if (acceptEncoding !== undefined) headers['Accept-Encoding'] = acceptEncoding;
        get({ port: portOf(server), host: '127.0.0.1', path: '/api/v1/leads/export?format=ndjson', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => server.close(() => resolve({ headers: res.headers, body: Buffer.concat(chunks) })));
        }).on('error', reject);
      });
    });
  }

  it('gzips the export when Accept-Encoding accepts gzip, saying so and varying on Accept-Encoding', async () => {
    const plain = await rawExport(undefined);
    const zipped = await rawExport('gzip, deflate, br');

    expect(zipped.headers).toMatchObject({ 'content-encoding': 'gzip', vary: 'Accept-Encoding' });
    expect(gunzipSync(zipped.body).toString('utf8')).toBe(plain.body.toString('utf8'));
    expect(zipped.body.length).toBeLessThan(plain.body.length);
  });

  it.each([undefined, 'identity', 'gzip;q=0', 'br'])('sends the export uncompressed for Accept-Encoding %p', async (acceptEncoding) => {
    const res = await rawExport(acceptEncoding);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(ndjsonLeads(res.body.toString('utf8'))).toHaveLength(5);
  });
});

describe('GET /api/v1/leads/export bad requests', () => {
  let key: string;
  beforeAll(async () => {
    key = (await createWorkspace(ctx.db)).key;
  });

  it.each([
    ['format=xml', 'format', /^expected one of csv, ndjson, got "xml"$/],
    ['status=WRONG', 'status', /^expected one of /],
    ['search=a%00b', 'search', /./],
    [`search=${'s'.repeat(201)}`, 'search', /./],
    ['page=2', 'page', /^unknown field; expected only the fields status, search, assignedToId, externalId, format$/],
    ['cursor=abc', 'cursor', /^unknown field; expected only the fields /],
    ['status=LOST&status=BUSY', 'status', /^give this parameter once$/],
  ])('answers 400 in the REST error body for %s', async (query, path, issue) => {
    const res = await exportLeads(ctx.app, key, query);

    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^Invalid input: /) });
    expect(res.body.error.issues).toContainEqual({ path: [path], message: expect.stringMatching(issue) });
  });
});

describe('GET /api/v1/leads/export authentication, scope and tier', () => {
  it('answers 401 without a key', async () => {
    const res = await exportLeads(ctx.app, null);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 403 naming leads.read for a key without it, before reading the query', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.create'] });
    const res = await exportLeads(ctx.app, key, 'format=xml');
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/missing scope: leads\.read/);
  });

  it.each(['FREE', 'PRO'] as const)('exports for a %s-tier key with leads.read, as the REST list answers every tier', async (tier) => {
    const ws = await createWorkspace(ctx.db, { tier });
    const lead = await createLead(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    const res = await exportLeads(ctx.app, key, { format: 'ndjson' });
    expect(res.status).toBe(200);
    expect(ndjsonLeads(exportText(res)).map((l) => l.id)).toEqual([lead.id]);
  });

  it('is not taken for a lead id: GET /api/v1/leads/{id} still answers a lead, and a lead named "export" cannot exist', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id);
    const one = await request(ctx.app).get(`/api/v1/leads/${lead.id}`).set('Authorization', `Bearer ${ws.key}`);
    const exported = await exportLeads(ctx.app, ws.key, { format: 'ndjson' });
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(lead.id);
    expect(exported.headers['content-type']).toBe('application/x-ndjson');
  });
});

describe('HEAD /api/v1/leads/export', () => {
  it('answers the export\'s headers without a body', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id);
    const res = await request(ctx.app).head('/api/v1/leads/export?format=ndjson').set('Authorization', `Bearer ${ws.key}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson');
    expect(res.text ?? '').toBe('');
  });
});

describe('GET /api/v1/leads/export rate limit', () => {
  const limited = createTestContext({ rateLimiter: memoryLimiter({ perKey: 25 }) });
  afterAll(() => limited.close());

  it('counts an export as ten requests against the key\'s budget, and answers 429 once it would pass it', async () => {
    const ws = await createWorkspace(limited.db);
    await createLead(limited.db, ws.org.id);

    const list = await listLeads(limited.app, ws.key);
    const first = await exportLeads(limited.app, ws.key);
    const second = await exportLeads(limited.app, ws.key);
    const third = await exportLeads(limited.app, ws.key);

    expect(rateLimitOf(list).r).toBe(24);
    expect([first.status, rateLimitOf(first).r]).toEqual([200, 14]);
    expect([second.status, rateLimitOf(second).r]).toEqual([200, 4]);
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('TOO_MANY_REQUESTS');
  });
});
