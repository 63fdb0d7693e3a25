import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createMember, createWorkspace } from '../helpers/factories';
import { insertEndpoint } from '../helpers/webhook-fixtures';
import { CSV, NDJSON, startTestRunner, uploadImport, validCsv, waitForImport } from '../helpers/imports';
import { renderLeadJson } from '../../src/db/leads';
import type { ImportRunner } from '../../src/imports/import-runner';

const ctx = createTestContext();
let runner: ImportRunner | undefined;
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
});
afterAll(() => ctx.close());

async function workspace() {
  const ws = await createWorkspace(ctx.db);
  runner = startTestRunner(ctx.db, [ws.org.id]);
  return ws;
}

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

/** The workspace's leads by name (an import's leads may share a creation time, so the list's order says nothing of the file's). */
async function leadsOf(key: string) {
  const res = await request(ctx.app).get('/api/v1/leads?pageSize=100').set(auth(key));
  return (res.body.data as any[]).sort((a, b) => (a.name < b.name ? -1 : 1));
}

async function eventsOf(orgId: string) {
  return ctx.db('events').where({ org_id: orgId }).orderBy(['txid', 'seq']).select('id', 'type', 'object_id', 'actor_kind', 'actor_id', 'data');
}

describe('an import in create mode', () => {
  it('writes every valid row as leads.create would: the lead, its stored JSON, counters, events and deliveries, then import.completed', async () => {
    const ws = await workspace();
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: 'http://127.0.0.1:9/hook' });
    const member = await createMember(ctx.db, ws.org.id);
    const csv = [
      'name,phone,phones,email,emails,company,source,notes,status,nextCallAt,assignedToId',
      `Ana Souza,020 7946 0001,+442079460002;'+442079460003,ANA@Example.com,ana2@example.com,Acme,web,"Call, after 3pm",CONTACTED,2030-01-31T10:00:00Z,${member.id}`,
      'Bo,+442079460004,,,,,,,,,',
      "'=Eve,+442079460005,,,,,,,,,",
      '',
      'Di,+442079460006,,,,Initech,,"multi\nline",,,',
    ].join('\r\n');
    const upload = await uploadImport(ctx.app, ws.key, csv, { type: CSV });
    expect(upload.status).toBe(202);
    const done = await waitForImport(ctx.app, ws.key, upload.body.id);
    expect(done).toMatchObject({ status: 'succeeded', rows: { total: 4, processed: 4, created: 4, updated: 0, failed: 0 }, finishedAt: expect.any(String) });

    const leads = await leadsOf(ws.key);
    expect(leads.map((l) => l.name)).toEqual(['=Eve', 'Ana Souza', 'Bo', 'Di']);
    expect(leads[1]).toMatchObject({
      phones: ['+442079460001', '+442079460002', '+442079460003'], emails: ['ana@example.com', 'ana2@example.com'], company: 'Acme',
      source: 'web', notes: 'Call, after 3pm', status: 'CONTACTED', nextCallAt: '2030-01-31T10:00:00.000Z', assignedToId: member.id, externalId: null,
    });
    expect(leads[3].notes).toBe('multi\nline');
    // The stored JSON is what a fresh render gives, and the list's total counts them (the counters).
    const stored = await ctx.db('lead_json').where({ org_id: ws.org.id }).orderBy('lead_id').select('lead_id', 'json');
    expect(stored).toEqual(await renderLeadJson(ctx.db, ws.org.id));
    const list = await request(ctx.app).get('/api/v1/leads').set(auth(ws.key));
    expect(list.body.pagination.total).toBe(4);

    const events = await eventsOf(ws.org.id);
    expect(events.map((e) => e.type)).toEqual([
      'contact.created', 'lead.created', 'contact.created', 'lead.created', 'contact.created', 'lead.created', 'contact.created', 'lead.created',
      'import.completed',
    ]);
    for (const lead of leads) {
      const event = events.find((e) => e.type === 'lead.created' && e.object_id === lead.id)!;
      expect(event).toMatchObject({ actor_kind: 'apiKey', actor_id: ws.keyId });
      const byId = await request(ctx.app).get(`/api/v1/leads/${lead.id}`).set(auth(ws.key));
      expect(event.data.object).toEqual(byId.body);
    }
    expect(events.at(-1)!.data.object).toMatchObject({ id: upload.body.id, status: 'succeeded', rows: { created: 4 } });
    const deliveries = await ctx.db('webhook_deliveries').where({ org_id: ws.org.id, endpoint_id: endpoint.id }).count({ n: '*' });
    expect(Number(deliveries[0]!.n)).toBe(events.length);
    const chunks = await ctx.db('import_chunks').where({ org_id: ws.org.id }).count({ n: '*' });
    expect(Number(chunks[0]!.n)).toBe(0);
  });

  it('refuses bad rows one by one with leads.create messages, writes the rest, and lists them in the errors file', async () => {
    const ws = await workspace();
    const ndjson = [
      '{"name":"Ok","phone":"+442079460011"}',
      '{"name":"","phone":"not a phone"}',
      'not json',
      '{"name":"Gone","phone":"+442079460012","assignedToId":"mem_nobodyNobodyNobody1234"}',
      '{"name":"Fax","phone":"+442079460013","fax":"1"}',
      '{"name":"Dup","phone":"+442079460014","externalId":"x-1"}',
      '{"name":"Dup2","phone":"+442079460015","externalId":"x-1"}',
    ].join('\n');
    const upload = await uploadImport(ctx.app, ws.key, ndjson, { type: NDJSON });
    const done = await waitForImport(ctx.app, ws.key, upload.body.id);
    expect(done).toMatchObject({ status: 'succeeded', rows: { total: 7, processed: 7, created: 2, failed: 5 } });
    expect((await leadsOf(ws.key)).map((l) => l.name)).toEqual(['Dup', 'Ok']);

    // The same messages leads.create answers for the same inputs.
    const direct = await request(ctx.app).post('/api/v1/leads').set(auth(ws.key)).set('Content-Type', 'application/json').send({ name: '', phone: 'not a phone' });
    const file = await request(ctx.app).get(`/api/v1/imports/${upload.body.id}/errors`).set(auth(ws.key));
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = file.text.trim().split('\r\n');
    expect(lines[0]).toBe('line,field,message,row');
    const expected = [
      ...direct.body.error.issues.map((i: { path: string[]; message: string }) => `2,${i.path.join('.')},${csvCell(i.message)},${csvCell('{"name":"","phone":"not a phone"}')}`),
      `3,,expected a JSON object (one leads.create input per line); this line is not valid JSON,not json`,
      `4,assignedToId,"no member ""mem_nobodyNobodyNobody1234"" in this workspace",${csvCell('{"name":"Gone","phone":"+442079460012","assignedToId":"mem_nobodyNobodyNobody1234"}')}`,
    ];
    expect(lines.slice(1, 1 + expected.length)).toEqual(expected);
    expect(lines.find((l) => l.startsWith('5,fax,'))).toMatch(/^5,fax,"?unknown field/);
    expect(lines.at(-1)).toMatch(/^7,externalId,another lead of this workspace holds this external id,/);
  });

  it('takes a file of several batches and chunks, with the rows in the file order', async () => {
    const ws = await workspace();
    const upload = await uploadImport(ctx.app, ws.key, validCsv(40), { type: CSV });
    const done = await waitForImport(ctx.app, ws.key, upload.body.id);
    expect(done.rows).toEqual({ total: 40, processed: 40, created: 40, updated: 0, failed: 0 });
    const count = await ctx.db('leads').where({ org_id: ws.org.id }).count({ n: '*' });
    expect(Number(count[0]!.n)).toBe(40);
  });
});

describe('a dry run', () => {
  it('validates and counts every row, and writes no lead and no event', async () => {
    const ws = await workspace();
    const csv = `${validCsv(3)}Bad,not a phone,,,,\n`;
    const upload = await uploadImport(ctx.app, ws.key, csv, { type: CSV, query: { resource: 'leads', dryRun: 'true' } });
    expect(upload.body.dryRun).toBe(true);
    const done = await waitForImport(ctx.app, ws.key, upload.body.id);
    expect(done).toMatchObject({ status: 'succeeded', dryRun: true, rows: { total: 4, processed: 4, created: 3, failed: 1 } });
    expect(await leadsOf(ws.key)).toEqual([]);
    expect(await eventsOf(ws.org.id)).toEqual([]);
    const file = await request(ctx.app).get(`/api/v1/imports/${upload.body.id}/errors`).set(auth(ws.key));
    expect(file.text).toContain('5,phone,');
  });
});

describe('upsert mode', () => {
  it('creates or changes by externalId; of two rows with one id the later wins', async () => {
    const ws = await workspace();
    const first = await uploadImport(ctx.app, ws.key, 'externalId,name,phone\na,Ann,+442079460021\nb,Ben,+442079460022\na,Ann Later,+442079460023\n', { type: CSV, query: { resource: 'leads', mode: 'upsert' } });
    expect(await waitForImport(ctx.app, ws.key, first.body.id)).toMatchObject({ status: 'succeeded', rows: { created: 2, updated: 1, failed: 0 } });
    const second = await uploadImport(ctx.app, ws.key, '{"externalId":"b","name":"Ben Again","phone":"+442079460022"}\n{"externalId":"c","name":"Cy","phone":"+442079460024"}\n', { type: NDJSON, query: { resource: 'leads', mode: 'upsert' } });
    expect(await waitForImport(ctx.app, ws.key, second.body.id)).toMatchObject({ status: 'succeeded', rows: { created: 1, updated: 1 } });
    const leads = await leadsOf(ws.key);
    expect(leads.map((l) => [l.externalId, l.name, l.phones[0]])).toEqual([
      ['a', 'Ann Later', '+442079460023'], ['b', 'Ben Again', '+442079460022'], ['c', 'Cy', '+442079460024'],
    ]);
    const created = (await eventsOf(ws.org.id)).filter((e) => e.type === 'lead.created');
    expect(created).toHaveLength(3);
  });
});

describe('cancel', () => {
  it('stops a queued import; it keeps nothing it never wrote and says so', async () => {
    const ws = await createWorkspace(ctx.db);
    const upload = await uploadImport(ctx.app, ws.key, validCsv(5), { type: CSV });
    const cancelled = await request(ctx.app).post('/api/v1/rpc/imports.cancel').set(auth(ws.key)).set('Content-Type', 'application/json')
      .send({ json: { id: upload.body.id } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.result.data.json).toMatchObject({ status: 'cancelled', rows: { created: 0, processed: 0 } });
    runner = startTestRunner(ctx.db, [ws.org.id]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await leadsOf(ws.key)).toEqual([]);
    expect(await ctx.db('import_chunks').where({ org_id: ws.org.id })).toEqual([]);
  });
});

describe('the queue', () => {
  it('answers 429 with Retry-After to a workspace past its queue limit', async () => {
    const ws = await createWorkspace(ctx.db);
    for (let i = 0; i < 10; i++) expect((await uploadImport(ctx.app, ws.key, validCsv(1), { type: CSV })).status).toBe(202);
    const refused = await uploadImport(ctx.app, ws.key, validCsv(1), { type: CSV });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.body.error).toEqual({ code: 'TOO_MANY_REQUESTS', message: expect.stringContaining('10 imports waiting') });
    const list = await request(ctx.app).get('/api/v1/rpc/imports.getAll').set(auth(ws.key));
    expect(list.body.result.data.json.pagination.total).toBe(10);
  });
});

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
