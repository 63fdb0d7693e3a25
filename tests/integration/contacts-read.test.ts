import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, resultOf } from '../helpers/rpc';
import { expectRpcFailure, issuePaths } from '../helpers/leads-procedures-helpers';
import { CONTACT_FIELDS, createContact } from '../helpers/contacts-clients-fixtures';

const ctx = createTestContext();
afterAll(() => ctx.close());

const day = (n: number) => new Date(`2030-01-${String(n).padStart(2, '0')}T09:00:00.000Z`);

describe('GET contacts.getById', () => {
  it('answers 200 with exactly the 10 contact fields, primaries first of their lists, Dates revived', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id, {
      name: 'Ana Lima', phones: ['+442079460018', '+442079460019'], emails: ['ana@example.com', 'a@example.com'], company: 'Acme',
    });
    const res = await rpcGet(ctx.app, 'contacts.getById', { id: contact.id }, ws.key);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.result.data.json).sort()).toEqual([...CONTACT_FIELDS]);
    expect(resultOf(res)).toEqual({
      id: contact.id, name: 'Ana Lima', phones: ['+442079460018', '+442079460019'], emails: ['ana@example.com', 'a@example.com'],
      primaryPhone: '+442079460018', primaryEmail: 'ana@example.com', company: 'Acme', createdAt: contact.createdAt, updatedAt: contact.updatedAt, externalId: null,
    });
    expect(resultOf(res).createdAt).toBeInstanceOf(Date);
  });

  it('answers null primaries and company for a contact without phones, emails or company', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id, { phones: [], emails: [] });
    const json = (await rpcGet(ctx.app, 'contacts.getById', { id: contact.id }, ws.key)).body.result.data.json;
    expect([json.primaryPhone, json.primaryEmail, json.company, json.phones, json.emails]).toEqual([null, null, null, [], []]);
  });

  it("answers 404 for another workspace's contact id, without any of its data", async () => {
    const ws = await createWorkspace(ctx.db);
    const theirs = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, theirs.org.id, { name: unique('Secret') });
    const res = await rpcGet(ctx.app, 'contacts.getById', { id: contact.id }, ws.key);
    expect(expectRpcFailure(res, 'NOT_FOUND', 'contacts.getById').message).toBe(`No contact ${JSON.stringify(contact.id)} in this workspace`);
    expect(JSON.stringify(res.body)).not.toContain(contact.name);
  });

  it('answers 404 for an id that names no contact', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcFailure(await rpcGet(ctx.app, 'contacts.getById', { id: 'con_0000000000000000000000' }, ws.key), 'NOT_FOUND', 'contacts.getById');
  });

  it.each([
    ['no id', {}, [['id']]],
    ['an empty id', { id: '' }, [['id']]],
    ['an unknown key', { id: 'con_x', extra: 1 }, [['extra']]],
    ['no input at all', undefined, [[]]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'contacts.getById', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'contacts.getById');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming contacts.read when the key lacks it', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await createContact(ctx.db, ws.org.id);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['contacts.create', 'contacts.update', 'contacts.delete', 'leads.read'] });
    const res = await rpcGet(ctx.app, 'contacts.getById', { id: contact.id }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'contacts.getById').message).toBe('missing scope: contacts.read');
  });
});

describe('GET contacts.getAll', () => {
  let ws: Awaited<ReturnType<typeof createWorkspace>>;
  let theirs: Awaited<ReturnType<typeof createWorkspace>>;
  beforeAll(async () => {
    ws = await createWorkspace(ctx.db);
    theirs = await createWorkspace(ctx.db);
    await createContact(ctx.db, ws.org.id, { name: 'Ana Lima', phones: ['+442079460018'], emails: ['ana@lima.example'], company: 'Acme Ltd' }, day(1));
    await createContact(ctx.db, ws.org.id, { name: 'Bruno Costa', phones: ['+12015550123'], emails: ['bruno@example.com'] }, day(3));
    await createContact(ctx.db, ws.org.id, { name: 'Carla 100%_done', phones: [], emails: [], company: 'Zeta' }, day(2));
    // Same name, company, email and phone in another workspace: never to be answered.
    await createContact(ctx.db, theirs.org.id, { name: 'Ana Lima', phones: ['+442079460018'], emails: ['ana@lima.example'], company: 'Acme Ltd' }, day(4));
  });

  async function names(input: Record<string, unknown> | undefined, key = ws.key) {
    const res = await rpcGet(ctx.app, 'contacts.getAll', input, key);
    expect(res.status).toBe(200);
    const page = resultOf(res);
    return { names: page.data.map((c: { name: string }) => c.name), pagination: page.pagination, page };
  }

  it("answers the workspace's contacts newest first, each with the 10 fields, page 1 of 50 by default (no input)", async () => {
    const { names: got, pagination, page } = await names(undefined);
    expect(got).toEqual(['Bruno Costa', 'Carla 100%_done', 'Ana Lima']);
    expect(pagination).toEqual({ page: 1, pageSize: 50, total: 3, totalPages: 1, hasNextPage: false, hasPrevPage: false });
    for (const contact of page.data) expect(Object.keys(contact).sort()).toEqual([...CONTACT_FIELDS]);
  });

  it('breaks created_at ties by id, descending, so pages are stable', async () => {
    const own = await createWorkspace(ctx.db);
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await createContact(ctx.db, own.org.id, {}, day(5))).id);
    const res = await rpcGet(ctx.app, 'contacts.getAll', {}, own.key);
    expect(resultOf(res).data.map((c: { id: string }) => c.id)).toEqual([...ids].sort().reverse());
  });

  it('pages with the pagination wrapper: total counts every match, hasNext/hasPrev follow the page', async () => {
    const first = await names({ pageSize: 2 });
    expect(first.names).toEqual(['Bruno Costa', 'Carla 100%_done']);
    expect(first.pagination).toEqual({ page: 1, pageSize: 2, total: 3, totalPages: 2, hasNextPage: true, hasPrevPage: false });
    const second = await names({ page: 2, pageSize: 2 });
    expect(second.names).toEqual(['Ana Lima']);
    expect(second.pagination).toEqual({ page: 2, pageSize: 2, total: 3, totalPages: 2, hasNextPage: false, hasPrevPage: true });
    const beyond = await names({ page: 9, pageSize: 2 });
    expect(beyond.names).toEqual([]);
    expect(beyond.pagination).toMatchObject({ page: 9, total: 3, hasNextPage: false, hasPrevPage: true });
  });

  it('clamps a pageSize of 500 to 100', async () => {
    expect((await names({ pageSize: 500 })).pagination).toMatchObject({ pageSize: 100, total: 3 });
  });

  it.each([
    ['a name fragment in another case', 'ANA L', ['Ana Lima']],
    ['a company fragment', 'acme', ['Ana Lima']],
    ['an email fragment', 'bruno@EXAMPLE', ['Bruno Costa']],
    ['an E.164 fragment', '+1201', ['Bruno Costa']],
    ['a national phone number with spaces', '020 7946 0018', ['Ana Lima']],
    ['a phone fragment without the trunk 0', '7946 0018', ['Ana Lima']],
    ['% and _ taken literally', '100%_', ['Carla 100%_done']],
    ['a % that would match everything as a wildcard', '%', ['Carla 100%_done']],
    ['a blank term (no filter)', '   ', ['Bruno Costa', 'Carla 100%_done', 'Ana Lima']],
    ['a term nothing matches', 'nobody-here', []],
  ])('searches case-insensitively: %s', async (_label, search, expected) => {
    const { names: got, pagination } = await names({ search });
    expect(got).toEqual(expected);
    expect(pagination.total).toBe(expected.length);
  });

  it("never answers another workspace's contacts, even when the search matches them exactly", async () => {
    const { page } = await names({ search: 'Ana Lima' });
    expect(page.data).toHaveLength(1);
    const mine = await names({ search: 'Ana Lima' }, theirs.key);
    expect(mine.page.data).toHaveLength(1);
    expect(mine.page.data[0].id).not.toBe(page.data[0].id);
  });

  it('answers an empty page for a workspace with no contacts', async () => {
    const empty = await createWorkspace(ctx.db);
    expect((await names({}, empty.key)).pagination).toEqual({
      page: 1, pageSize: 50, total: 0, totalPages: 1, hasNextPage: false, hasPrevPage: false,
    });
  });

  it.each([
    ['page 0', { page: 0 }, [['page']]],
    ['a fractional pageSize', { pageSize: 1.5 }, [['pageSize']]],
    ['pageSize 0', { pageSize: 0 }, [['pageSize']]],
    ['a pageSize as a string', { pageSize: '10' }, [['pageSize']]],
    ['a search over 200 characters', { search: 'x'.repeat(201) }, [['search']]],
    ['an unknown filter', { status: 'OPEN' }, [['status']]],
  ])('answers 400 for %s', async (_label, input, paths) => {
    const res = await rpcGet(ctx.app, 'contacts.getAll', input, ws.key);
    expectRpcFailure(res, 'BAD_REQUEST', 'contacts.getAll');
    expect(issuePaths(res)).toEqual(paths);
  });

  it('answers 403 naming contacts.read when the key lacks it', async () => {
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['clients.read', 'leads.read'] });
    const res = await rpcGet(ctx.app, 'contacts.getAll', {}, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'contacts.getAll').message).toBe('missing scope: contacts.read');
  });
});
