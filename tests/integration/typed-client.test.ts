import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createOrg, createWorkspace, unique } from '../helpers/factories';
import { generateApiKeySecret } from '../../src/domain/api-key-secret';
import { createWorkspaceClient, WorkspaceApiError, type FetchLike } from '../../packages/client/src';

const ctx = createTestContext();
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = ctx.app.listen(0);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  await ctx.close();
});

/**
 * Node's own fetch, unwrapped: the client parses `text()` itself, so jest's second realm does not
 * matter. `afterEach` runs after each answer has been received, to change data mid-walk.
 */
function clientFor(apiKey: string, options: { urls?: string[]; bodies?: unknown[]; afterEach?: () => Promise<void> } = {}) {
  const recording: FetchLike = async (url, init) => {
    options.urls?.push(url);
    const res = await fetch(url, init);
    if (options.bodies) options.bodies.push(JSON.parse(await res.clone().text()));
    await options.afterEach?.();
    return res;
  };
  return createWorkspaceClient({ baseUrl, apiKey, fetch: recording });
}

async function rejectionOf(call: Promise<unknown>): Promise<WorkspaceApiError> {
  const err = await call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkspaceApiError);
  return err as WorkspaceApiError;
}

async function leadsWithCallTimes(orgId: string, count: number, firstCallAt: Date) {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    ids.push((await createLead(ctx.db, orgId, { nextCallAt: new Date(firstCallAt.getTime() + i * 60_000) })).id);
  }
  return ids;
}

describe('typed client reads', () => {
  it('answers leads.getById with the stored lead, timestamps as Dates', async () => {
    const ws = await createWorkspace(ctx.db);
    const nextCallAt = new Date('2031-05-06T07:08:09.123Z');
    const lead = await createLead(ctx.db, ws.org.id, { name: 'Ada Lovelace', nextCallAt });

    const got = await clientFor(ws.key).leads.getById({ id: lead.id });

    expect(got).toEqual(lead);
    expect(got.nextCallAt).toBeInstanceOf(Date);
    expect(got.createdAt).toBeInstanceOf(Date);
    expect(got.nextCallAt!.toISOString()).toBe('2031-05-06T07:08:09.123Z');
  });

  it('sends leads.getAll without input as a bare GET and with filters as ?input', async () => {
    const ws = await createWorkspace(ctx.db);
    const lost = await createLead(ctx.db, ws.org.id, { status: 'LOST' });
    const busy = await createLead(ctx.db, ws.org.id, { status: 'BUSY', nextCallAt: new Date('2030-01-01T00:00:00.000Z') });
    const urls: string[] = [];
    const client = clientFor(ws.key, { urls });

    const all = await client.leads.getAll();
    const filtered = await client.leads.getAll({ status: 'LOST', pageSize: 1 });

    expect(all.data.map((l) => l.id)).toEqual([busy.id, lost.id]);
    expect(filtered.data.map((l) => l.id)).toEqual([lost.id]);
    expect(filtered.pagination).toEqual({ page: 1, pageSize: 1, total: 1, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
    expect(urls[0]).toBe(`${baseUrl}/api/v1/rpc/leads.getAll`);
    expect(JSON.parse(new URL(urls[1]!).searchParams.get('input')!)).toEqual({ json: { status: 'LOST', pageSize: 1 } });
  });
});

describe('typed client writes', () => {
  it('creates a lead, round-tripping nextCallAt to the millisecond as stored, then clears it with null', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = clientFor(ws.key);
    const nextCallAt = new Date('2032-02-29T23:59:58.987Z');
    const name = unique('Grace Hopper');

    const created = await client.leads.create({ name, phone: '020 7946 0999', nextCallAt });

    expect(created).toMatchObject({ name, phones: ['+442079460999'], status: 'NOT_CONTACTED' });
    expect(created.nextCallAt).toBeInstanceOf(Date);
    expect(created.nextCallAt!.getTime()).toBe(nextCallAt.getTime());
    const row = await ctx.db('leads').where({ org_id: ws.org.id, id: created.id }).first();
    expect(row.next_call_at.getTime()).toBe(nextCallAt.getTime());

    const updated = await client.leads.update({ id: created.id, nextCallAt: null, notes: 'called' });

    expect(updated).toMatchObject({ id: created.id, nextCallAt: null, notes: 'called' });
    expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(created.updatedAt.getTime());
    expect(await ctx.db('leads').where({ org_id: ws.org.id, id: created.id }).first()).toMatchObject({ next_call_at: null, notes: 'called' });
  });
});

describe('typed client errors', () => {
  it('rejects invalid input with a WorkspaceApiError carrying BAD_REQUEST, 400, the issues and the path', async () => {
    const ws = await createWorkspace(ctx.db);

    const err = await rejectionOf(clientFor(ws.key).leads.create({ name: '', phone: '+442079460000' }));

    expect(err).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, path: 'leads.create', message: 'Invalid input: name: expected non-blank text of at most 200 characters, got empty text' });
    expect(err.issues).toEqual([{ path: ['name'], message: 'expected non-blank text of at most 200 characters, got empty text' }]);
    expect(await ctx.db('leads').where({ org_id: ws.org.id })).toEqual([]);
  });

  it('rejects an id of another workspace with NOT_FOUND (404)', async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const foreign = await createLead(ctx.db, other.org.id);

    const err = await rejectionOf(clientFor(ws.key).leads.getById({ id: foreign.id }));

    expect(err).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, path: 'leads.getById', issues: undefined });
  });

  it('rejects a key without leads.create with FORBIDDEN (403) naming the scope', async () => {
    const org = await createOrg(ctx.db);
    const { key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });

    const err = await rejectionOf(clientFor(key).leads.create({ name: 'X', phone: '+442079460000' }));

    expect(err).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403, message: 'missing scope: leads.create' });
  });

  it('rejects an unknown key with UNAUTHORIZED (401) on procedures and the REST list alike', async () => {
    const client = clientFor(generateApiKeySecret().secret);

    expect(await rejectionOf(client.leads.getAll())).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'Invalid API key' });
    expect(await rejectionOf(client.leads.list())).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, path: '/api/v1/leads' });
  });

  it('rejects a bad REST list filter with BAD_REQUEST and its issues', async () => {
    const ws = await createWorkspace(ctx.db);

    const err = await rejectionOf(clientFor(ws.key).leads.list({ pageSize: 0 }));

    expect(err).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, path: '/api/v1/leads' });
    expect(err.issues).toEqual([expect.objectContaining({ path: ['pageSize'] })]);
  });
});

describe('typed client REST list', () => {
  it('answers one page with filters applied and the three timestamps revived as Dates', async () => {
    const ws = await createWorkspace(ctx.db);
    const nextCallAt = new Date('2030-06-07T08:09:10.111Z');
    const busy = await createLead(ctx.db, ws.org.id, { status: 'BUSY', nextCallAt });
    await createLead(ctx.db, ws.org.id, { status: 'LOST' });

    const page = await clientFor(ws.key).leads.list({ status: 'BUSY' });

    expect(page.data).toEqual([busy]);
    expect(page.data[0]!.nextCallAt).toBeInstanceOf(Date);
    expect(page.data[0]!.createdAt).toBeInstanceOf(Date);
    expect(page.data[0]!.updatedAt).toBeInstanceOf(Date);
    expect(page.pagination).toEqual({ page: 1, pageSize: 50, total: 1, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
  });

  it('walks 250 leads with pageSize 100 in three requests, yielding every lead exactly once in list order', async () => {
    const ws = await createWorkspace(ctx.db);
    const ids = await leadsWithCallTimes(ws.org.id, 250, new Date('2030-01-01T00:00:00.000Z'));
    const urls: string[] = [];

    const seen: string[] = [];
    for await (const lead of clientFor(ws.key, { urls }).leads.listAll({ pageSize: 100 })) {
      expect(lead.nextCallAt).toBeInstanceOf(Date);
      seen.push(lead.id);
    }

    expect(seen).toEqual(ids);
    expect(urls.map((u) => new URL(u).searchParams.get('page'))).toEqual(['1', '2', '3']);
  });

  it('yields a lead pushed onto the next page mid-walk only once', async () => {
    const ws = await createWorkspace(ctx.db);
    const ids = await leadsWithCallTimes(ws.org.id, 25, new Date('2030-01-01T00:00:00.000Z'));
    let inserted = false;
    // After page 1, a lead that sorts first shifts every lead down one place: page 2 repeats page 1's last.
    const afterEach = async () => {
      if (inserted) return;
      inserted = true;
      await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2029-01-01T00:00:00.000Z') });
    };
    const bodies: unknown[] = [];

    const seen: string[] = [];
    for await (const lead of clientFor(ws.key, { bodies, afterEach }).leads.listAll({ pageSize: 10 })) seen.push(lead.id);

    const sent = (bodies as { data: { id: string }[] }[]).map((page) => page.data.map((l) => l.id));
    expect(sent.map((page) => page.length)).toEqual([10, 10, 6]);
    expect(sent[1]![0]).toBe(ids[9]);
    expect(seen).toEqual(ids);
  });

  it('follows hasNextPage of each page, not the first page totalPages, when leads are added mid-walk', async () => {
    const ws = await createWorkspace(ctx.db);
    const first = await leadsWithCallTimes(ws.org.id, 15, new Date('2030-01-01T00:00:00.000Z'));
    let added: string[] = [];
    // Page 1 says totalPages 2; ten leads that sort last then make a third page.
    const afterEach = async () => {
      if (added.length > 0) return;
      added = await leadsWithCallTimes(ws.org.id, 10, new Date('2031-01-01T00:00:00.000Z'));
    };
    const urls: string[] = [];

    const seen: string[] = [];
    for await (const lead of clientFor(ws.key, { urls, afterEach }).leads.listAll({ pageSize: 10 })) seen.push(lead.id);

    expect(seen).toEqual([...first, ...added]);
    expect(urls.map((u) => new URL(u).searchParams.get('page'))).toEqual(['1', '2', '3']);
  });
});

describe('typed client single-lead REST routes', () => {
  it('creates, reads, updates under If-Match and deletes a lead, timestamps as Dates', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = clientFor(ws.key);
    const nextCallAt = new Date('2033-03-03T03:03:03.333Z');
    const name = unique('Rest Ada');

    const created = await client.leads.rest.create({ name, phone: '020 7946 0555', nextCallAt });

    expect(created.lead).toMatchObject({ name, phones: ['+442079460555'], status: 'NOT_CONTACTED' });
    expect(created.lead.createdAt).toBeInstanceOf(Date);
    expect(created.lead.nextCallAt!.getTime()).toBe(nextCallAt.getTime());
    expect(created.etag).toMatch(/^(W\/)?"/);

    const read = await client.leads.rest.get(created.lead.id);

    expect(read).toEqual(created);
    expect(await client.leads.getById({ id: created.lead.id })).toEqual(read.lead);

    const updated = await client.leads.rest.update(created.lead.id, { notes: 'called', nextCallAt: null }, { ifMatch: read.etag });

    expect(updated.lead).toMatchObject({ id: created.lead.id, notes: 'called', nextCallAt: null });
    expect(updated.etag).not.toBe(read.etag);
    expect(await ctx.db('leads').where({ org_id: ws.org.id, id: created.lead.id }).first()).toMatchObject({ notes: 'called', next_call_at: null });

    await client.leads.rest.delete(created.lead.id);

    expect(await ctx.db('leads').where({ org_id: ws.org.id, id: created.lead.id }).first()).toBeUndefined();
    const gone = await rejectionOf(client.leads.rest.get(created.lead.id));
    expect(gone).toMatchObject({ code: 'NOT_FOUND', status: 404, path: `/api/v1/leads/${created.lead.id}` });
  });

  it('refuses an update whose If-Match is stale with PRECONDITION_FAILED (412), writing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = clientFor(ws.key);
    const { lead, etag } = await client.leads.rest.create({ name: unique('Stale'), phone: '+442079460556' });
    await client.leads.rest.update(lead.id, { notes: 'first' }, { ifMatch: etag });

    const err = await rejectionOf(client.leads.rest.update(lead.id, { notes: 'second' }, { ifMatch: etag }));

    expect(err).toMatchObject({ code: 'PRECONDITION_FAILED', status: 412, httpStatus: 412 });
    expect(err.requestId).toEqual(expect.any(String));
    expect(await ctx.db('leads').where({ org_id: ws.org.id, id: lead.id }).first()).toMatchObject({ notes: 'first' });
  });

  it('sends an Idempotency-Key on every write and none on reads', async () => {
    const ws = await createWorkspace(ctx.db);
    const sent: { method: string; key: string | undefined }[] = [];
    const recording: FetchLike = (url, init) => {
      sent.push({ method: init.method, key: init.headers['Idempotency-Key'] });
      return fetch(url, init);
    };
    const client = createWorkspaceClient({ baseUrl, apiKey: ws.key, fetch: recording });

    const { lead } = await client.leads.rest.create({ name: unique('Keyed'), phone: '+442079460557' }, { idempotencyKey: 'create-keyed' });
    await client.leads.rest.get(lead.id);
    await client.leads.update({ id: lead.id, notes: 'x' });
    await client.leads.rest.delete(lead.id);

    expect(sent.map((s) => s.method)).toEqual(['POST', 'GET', 'POST', 'DELETE']);
    expect(sent[0]!.key).toBe('create-keyed');
    expect(sent[1]!.key).toBeUndefined();
    expect(sent[2]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[3]!.key).toMatch(/^[0-9a-f-]{36}$/);
  });
});
