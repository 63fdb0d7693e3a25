import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { CLIENT_FIELDS, createClient, createContact } from '../helpers/contacts-clients-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

const day = (n: number) => new Date(`2030-01-${String(n).padStart(2, '0')}T09:00:00.000Z`);

describe('GET clients.getById', () => {
  it('answers 200 with exactly the 10 client fields, Dates revived', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id);
    const client = await createClient(ctx.db, ws.org.id, {
      name: 'Acme Ltd', contactId: contact.id, company: 'Acme', email: 'billing@acme.example', phone: '+442079460018', notes: 'net 30',
    });
    const res = await rpcGet(ctx.app, 'clients.getById', { id: client.id }, ws.key);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...CLIENT_FIELDS]);
    expect(resultOf(res)).toEqual({
      id: client.id, name: 'Acme Ltd', contactId: contact.id, company: 'Acme', email: 'billing@acme.example', phone: '+442079460018',
      notes: 'net 30', createdAt: client.createdAt, updatedAt: client.updatedAt, externalId: null,
    });
    expect(resultOf(res).updatedAt).toBeInstanceOf(Date);
  });

  it('answers explicit nulls for a client with only a name', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, ws.org.id);
    const json = (await rpcGet(ctx.app, 'clients.getById', { id: client.id }, ws.key)).body.result.data.json;
    expect([json.contactId, json.company, json.email, json.phone, json.notes]).toEqual([null, null, null, null, null]);
  });

  it("answers 404 for another workspace's client id, without any of its data", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, theirs.org.id, { name: unique('Secret client') });
    const res = await rpcGet(ctx.app, 'clients.getById', { id: client.id }, ws.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', 'clients.getById').message).toBe(`No client ${JSON.stringify(client.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(client.name);
  });

  it('answers 404 for an id that names no client', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcFailure(await rpcGet(ctx.app, 'clients.getById', { id: 'cli_0000000000000000000000' }, ws.key), 'NOT_FOUND', 'clients.getById');
  });

  it.each([
    ['no id', {}, [['id']]],
    ['an id that is not a string', { id: 42 }, [['id']]],
    ['an unknown key', { id: 'cli_x', extra: 1 }, [['extra']]],
    ['no input at all', undefined, [[]]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'clients.getById', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'clients.getById');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming clients.read when the key lacks it', async () => {
    const ws = await createWorkspace(ctx.db);
    const client = await createClient(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['clients.create', 'clients.update', 'clients.delete', 'contacts.read'] });
    const res = await rpcGet(ctx.app, 'clients.getById', { id: client.id }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'clients.getById').message).toBe('missing scope: clients.read');
  });
});

describe('GET clients.getAll', () => {
  let ws: Awaited<ReturnType<typeof createWorkspace>>;
  let theirs: Awaited<ReturnType<typeof createWorkspace>>;
  beforeAll(async () => {
    ws = await createWorkspace(ctx.db);
    theirs = await createWorkspace(ctx.db);
    await createClient(ctx.db, ws.org.id, { name: 'Acme Ltd', company: 'Acme Group', email: 'billing@acme.example', phone: '+442079460018' }, day(1));
    await createClient(ctx.db, ws.org.id, { name: 'Beta Inc', email: 'ap@beta.example', phone: '+12015550123', notes: 'findme-in-notes' }, day(3));
    await createClient(ctx.db, ws.org.id, { name: 'Gamma 100%_done', company: 'Zeta' }, day(2));
    // Same values in another workspace: never to be answered.
    await createClient(ctx.db, theirs.org.id, { name: 'Acme Ltd', company: 'Acme Group', email: 'billing@acme.example', phone: '+442079460018' }, day(4));
  });

  async function names(input: Record<string, unknown> | undefined, key = ws.key) {
    const res = await rpcGet(ctx.app, 'clients.getAll', input, key);
    expect(res.status).toBe(200);
    const page = resultOf(res);
    return { names: page.data.map((c: { name: string }) => c.name), pagination: page.pagination, page };
  }

  it("answers the workspace's clients newest first, each with the 10 fields, page 1 of 50 by default (no input)", async () => {
    const { names: got, pagination, page } = await names(undefined);
    expect(got).toEqual(['Beta Inc', 'Gamma 100%_done', 'Acme Ltd']);
    expect(pagination).toEqual({ page: 1, pageSize: 50, total: 3, totalPages: 1, hasNextPage: false, hasPrevPage: false });
    for (const client of page.data) expect(Object.keys(client).sort()).toEqual([...CLIENT_FIELDS]);
  });

  it('breaks created_at ties by id, descending, so pages are stable', async () => {
    const own = await createWorkspace(ctx.db);
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await createClient(ctx.db, own.org.id, {}, day(5))).id);
    const res = await rpcGet(ctx.app, 'clients.getAll', {}, own.key);
    expect(resultOf(res).data.map((c: { id: string }) => c.id)).toEqual([...ids].sort().reverse());
  });

  it('pages with the pagination wrapper: total counts every match, hasNext/hasPrev follow the page', async () => {
    const first = await names({ pageSize: 2 });
    expect(first.names).toEqual(['Beta Inc', 'Gamma 100%_done']);
    expect(first.pagination).toEqual({ page: 1, pageSize: 2, total: 3, totalPages: 2, hasNextPage: true, hasPrevPage: false });
    const second = await names({ page: 2, pageSize: 2 });
    expect(second.names).toEqual(['Acme Ltd']);
    expect(second.pagination).toEqual({ page: 2, pageSize: 2, total: 3, totalPages: 2, hasNextPage: false, hasPrevPage: true });
  });

  it('clamps a pageSize of 500 to 100', async () => {
    expect((await names({ pageSize: 500 })).pagination).toMatchObject({ pageSize: 100, total: 3 });
  });

  it.each([
    ['a name fragment in another case', 'BETA', ['Beta Inc']],
    ['a company fragment', 'acme group', ['Acme Ltd']],
    ['an email fragment', '@ACME.example', ['Acme Ltd']],
    ['an E.164 fragment', '+1201', ['Beta Inc']],
    ['a national phone number with spaces', '020 7946 0018', ['Acme Ltd']],
    ['% and _ taken literally', '100%_', ['Gamma 100%_done']],
    ['a blank term (no filter)', '  ', ['Beta Inc', 'Gamma 100%_done', 'Acme Ltd']],
    ['a term only in notes (notes are not searched)', 'findme-in-notes', []],
  ])('searches case-insensitively: %s', async (_label, search, expected) => {
    const { names: got, pagination } = await names({ search, pageSize: 100 });
    expect(got).toEqual(expected);
    expect(pagination.total).toBe(expected.length);
  });

  it("never answers another workspace's clients, even when the search matches them exactly", async () => {
    const mine = await names({ search: 'billing@acme.example' });
    const other = await names({ search: 'billing@acme.example' }, theirs.key);
    expect([mine.page.data.length, other.page.data.length]).toEqual([1, 1]);
    expect(mine.page.data[0].id).not.toBe(other.page.data[0].id);
  });

  it.each([
    ['page 0', { page: 0 }, [['page']]],
    ['a negative pageSize', { pageSize: -1 }, [['pageSize']]],
    ['a search that is not a string', { search: 5 }, [['search']]],
    ['an unknown filter', { contactId: 'con_x' }, [['contactId']]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const res = await rpcGet(ctx.app, 'clients.getAll', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'clients.getAll');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming clients.read when the key lacks it', async () => {
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read', 'invoices.read'] });
    const res = await rpcGet(ctx.app, 'clients.getAll', {}, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'clients.getAll').message).toBe('missing scope: clients.read');
  });
});
