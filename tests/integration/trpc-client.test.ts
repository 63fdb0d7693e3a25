import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import superjson from 'superjson';
import { createTRPCClient, createTRPCUntypedClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '../../packages/client/src';
import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createOrg, createWorkspace, unique } from '../helpers/factories';
import { generateApiKeySecret } from '../../src/domain/api-key-secret';

const ctx = createTestContext();
let server: Server;
let port: number;

beforeAll(async () => {
  server = ctx.app.listen(0);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  await ctx.close();
});

/**
 * Node's fetch, recording each URL. Jest runs this file in a vm context while fetch belongs to the
 * outer realm, so `response.json()` would build objects whose prototype is not this realm's
 * Object.prototype, and superjson (which only walks plain objects) would leave Dates as strings.
 * Parsing the text here keeps the client's behaviour as it is outside jest (checked by hand with
 * a plain tsx script: Dates arrive as Dates there with the stock fetch).
 */
function recordingFetch(urls: string[]) {
  return async (url: Parameters<typeof fetch>[0], init?: unknown) => {
    urls.push(String(url));
    const res = await fetch(url, init as RequestInit);
    const text = await res.text();
    return { ok: res.ok, status: res.status, headers: res.headers, json: async (): Promise<unknown> => JSON.parse(text) };
  };
}

/** The official client, as an integrator would set it up; `urls` records every URL it fetched. */
function clientFor(key: string, urls: string[] = []) {
  return createTRPCUntypedClient({
    links: [
      httpLink({
        url: `http://127.0.0.1:${port}/api/v1/rpc`,
        transformer: superjson,
        headers: { Authorization: `Bearer ${key}` },
        fetch: recordingFetch(urls),
      }),
    ],
  });
}

/** The official client typed by the package's `AppRouter`, as its README shows. */
function typedClientFor(key: string) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `http://127.0.0.1:${port}/api/v1/rpc`,
        transformer: superjson,
        headers: { Authorization: `Bearer ${key}` },
        fetch: recordingFetch([]),
      }),
    ],
  });
}

async function rowCount(table: string, orgId: string): Promise<number> {
  const row = await ctx.db(table).where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

type ClientError = TRPCClientError<any>;

/** The error a client call rejects with, checked to be a TRPCClientError. */
async function rejectionOf(call: Promise<unknown>): Promise<ClientError> {
  const err = await call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCClientError);
  return err as ClientError;
}

describe('GET leads.getById through @trpc/client', () => {
  it('answers the lead with its timestamps as Date instances', async () => {
    const ws = await createWorkspace(ctx.db);
    const nextCallAt = new Date('2031-05-06T07:08:09.123Z');
    const lead = await createLead(ctx.db, ws.org.id, { name: 'Ada Lovelace', phones: ['+442079460123'], nextCallAt });

    const got = (await clientFor(ws.key).query('leads.getById', { id: lead.id })) as Record<string, unknown>;

    expect(got).toEqual({ ...lead, nextCallAt });
    expect(got.nextCallAt).toBeInstanceOf(Date);
    expect(got.createdAt).toBeInstanceOf(Date);
    expect(got.updatedAt).toBeInstanceOf(Date);
    expect((got.nextCallAt as Date).toISOString()).toBe('2031-05-06T07:08:09.123Z');
  });

  it('rejects with NOT_FOUND (404) for an id that is not a lead of the workspace', async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const foreign = await createLead(ctx.db, other.org.id);

    for (const id of ['lead_doesnotexist', foreign.id]) {
      const err = await rejectionOf(clientFor(ws.key).query('leads.getById', { id }));
      expect(err.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, path: 'leads.getById' });
      expect(err.message).toBe(`No lead ${JSON.stringify(id)} in this workspace`);
    }
  });
});

describe('GET leads.getAll through @trpc/client', () => {
  it('works without input: the client sends the no-input superjson form and gets the first page', async () => {
    const ws = await createWorkspace(ctx.db);
    const a = await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2030-01-01T00:00:00.000Z') });
    const b = await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2030-01-02T00:00:00.000Z') });
    const urls: string[] = [];

    const page = (await clientFor(ws.key, urls).query('leads.getAll')) as { data: { id: string; nextCallAt: unknown }[]; pagination: unknown };

    expect(urls).toHaveLength(1);
    const input = new URL(urls[0]!).searchParams.get('input');
    expect(JSON.parse(input!)).toEqual({ json: null, meta: { values: ['undefined'], v: 1 } });
    expect(page.data.map((l) => l.id)).toEqual([a.id, b.id]);
    expect(page.data[0]!.nextCallAt).toBeInstanceOf(Date);
    expect(page.pagination).toEqual({ page: 1, pageSize: 50, total: 2, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
  });

  it('passes filters and page numbers given as input', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id, { status: 'LOST' });
    const busy = await createLead(ctx.db, ws.org.id, { status: 'BUSY' });

    const page = (await clientFor(ws.key).query('leads.getAll', { status: 'BUSY', pageSize: 1 })) as { data: { id: string }[]; pagination: unknown };

    expect(page.data.map((l) => l.id)).toEqual([busy.id]);
    expect(page.pagination).toEqual({ page: 1, pageSize: 1, total: 1, totalPages: 1, hasNextPage: false, hasPrevPage: false, nextCursor: null });
  });
});

describe('POST leads.create through @trpc/client', () => {
  it('answers the new lead and round-trips nextCallAt to the millisecond, as stored', async () => {
    const ws = await createWorkspace(ctx.db);
    const nextCallAt = new Date('2032-02-29T23:59:58.987Z');
    const name = unique('Grace Hopper');

    const lead = (await clientFor(ws.key).mutation('leads.create', { name, phone: '020 7946 0999', nextCallAt })) as Record<string, unknown>;

    expect(lead).toMatchObject({ name, phones: ['+442079460999'], primaryPhone: '+442079460999', status: 'NOT_CONTACTED', nextCallAt });
    expect(lead.nextCallAt).toBeInstanceOf(Date);
    expect((lead.nextCallAt as Date).getTime()).toBe(nextCallAt.getTime());
    const row = await ctx.db('leads').where({ org_id: ws.org.id, id: lead.id as string }).first();
    expect(row.next_call_at.getTime()).toBe(nextCallAt.getTime());
    const contact = await ctx.db('contacts').where({ org_id: ws.org.id, id: row.contact_id }).first();
    expect(contact).toMatchObject({ name, phones: ['+442079460999'] });
  });

  it('rejects invalid input with BAD_REQUEST (400) carrying the field issues', async () => {
    const ws = await createWorkspace(ctx.db);

    const err = await rejectionOf(clientFor(ws.key).mutation('leads.create', { name: '', phone: '+442079460000' }));

    expect(err.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, path: 'leads.create' });
    expect(err.data.issues).toEqual([{ path: ['name'], message: 'expected non-blank text of at most 200 characters, got empty text' }]);
    expect(err.message).toBe('Invalid input: name: expected non-blank text of at most 200 characters, got empty text');
    expect(err.shape).toMatchObject({ code: -32600 });
    expect(await rowCount('contacts', ws.org.id)).toBe(0);
    expect(await rowCount('leads', ws.org.id)).toBe(0);
  });

  it('rejects an unreadable phone with BAD_REQUEST naming the phone field', async () => {
    const ws = await createWorkspace(ctx.db);

    const err = await rejectionOf(clientFor(ws.key).mutation('leads.create', { name: 'X', phone: 'call me maybe' }));

    expect(err.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect(err.data.issues).toEqual([
      { path: ['phone'], message: 'expected a phone number in E.164, e.g. +447400123456, or in the national format of region GB, e.g. 07400 123456, got "call me maybe"' },
    ]);
  });

  it('rejects with FORBIDDEN (403) naming the scope when the key lacks leads.create', async () => {
    const org = await createOrg(ctx.db);
    const { key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });

    const err = await rejectionOf(clientFor(key).mutation('leads.create', { name: 'X', phone: '+442079460000' }));

    expect(err.data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403, path: 'leads.create' });
    expect(err.message).toBe('missing scope: leads.create');
    expect(await rowCount('leads', org.id)).toBe(0);
  });
});

describe('POST leads.update and leads.delete through @trpc/client', () => {
  it('updates a lead (null clears nextCallAt) and then deletes it', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2030-03-03T03:03:03.000Z') });
    const client = clientFor(ws.key);

    const updated = (await client.mutation('leads.update', { id: lead.id, nextCallAt: null, notes: 'called' })) as Record<string, unknown>;
    expect(updated).toMatchObject({ id: lead.id, nextCallAt: null, notes: 'called' });
    expect(updated.updatedAt).toBeInstanceOf(Date);
    expect(await ctx.db('leads').where({ org_id: ws.org.id, id: lead.id }).first()).toMatchObject({ next_call_at: null, notes: 'called' });

    expect(await client.mutation('leads.delete', { id: lead.id })).toEqual({ id: lead.id, deleted: true });
    expect(await ctx.db('leads').where({ org_id: ws.org.id, id: lead.id }).first()).toBeUndefined();
  });
});

describe('authentication seen by @trpc/client', () => {
  it('rejects an unknown well-formed key with UNAUTHORIZED (401)', async () => {
    const err = await rejectionOf(clientFor(generateApiKeySecret().secret).query('leads.getAll'));

    expect(err.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    expect(err.message).toBe('Invalid API key');
    expect(err.shape).toMatchObject({ code: -32001 });
  });

  it('rejects a malformed key with UNAUTHORIZED (401)', async () => {
    const err = await rejectionOf(clientFor('not-a-key').query('leads.getById', { id: 'lead_x' }));

    expect(err.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    expect(err.message).toBe('Invalid API key');
  });

  it('rejects a workspace below the maximum tier with FORBIDDEN (403)', async () => {
    const ws = await createWorkspace(ctx.db, { tier: 'PRO' });

    const err = await rejectionOf(clientFor(ws.key).query('leads.getAll'));

    expect(err.data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
    expect(err.message).toMatch(/needs the BUSINESS tier .*; this workspace is on PRO$/);
  });
});

describe('@trpc/client typed by AppRouter', () => {
  // Never called: only type-checked (`tsc` fails if a `@ts-expect-error` line compiles).
  function typeChecks(client: ReturnType<typeof typedClientFor>) {
    // @ts-expect-error NEW is not a lead status
    void client.leads.getAll.query({ status: 'NEW' });
    // @ts-expect-error writes are mutations, not queries
    void client.leads.create.query({ name: 'Ada', phone: '+442079460123' });
    // @ts-expect-error app-only procedures are not in the router
    void client.apiKeys.list.query();
    void client.leads.getAll.query();
    type Lead = Awaited<ReturnType<typeof client.leads.getById.query>>;
    type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
    const datesAreDates: Same<[Lead['createdAt'], Lead['nextCallAt']], [Date, Date | null]> = true;
    void datesAreDates;
  }
  void typeChecks;

  it('reads and writes with typed inputs and outputs, Dates as Dates', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = typedClientFor(ws.key);
    const nextCallAt = new Date('2031-05-06T07:08:09.123Z');

    const created = await client.leads.create.mutate({ name: unique('Ada'), phone: '+442079460123', nextCallAt });
    const got = await client.leads.getById.query({ id: created.id });
    const page = await client.leads.getAll.query({ status: 'NOT_CONTACTED' });

    const createdAt: Date = got.createdAt;
    expect(createdAt).toBeInstanceOf(Date);
    expect(got.nextCallAt?.toISOString()).toBe('2031-05-06T07:08:09.123Z');
    expect(page.data.map((lead) => lead.id)).toEqual([created.id]);
  });

  it('types the error data: code, httpStatus and issues', async () => {
    const ws = await createWorkspace(ctx.db);

    const err = (await rejectionOf(typedClientFor(ws.key).leads.create.mutate({ name: '', phone: '+442079460000' }))) as TRPCClientError<AppRouter>;

    const issues = err.data?.issues;
    expect(err.data?.code).toBe('BAD_REQUEST');
    expect(issues).toEqual([{ path: ['name'], message: 'expected non-blank text of at most 200 characters, got empty text' }]);
  });
});
