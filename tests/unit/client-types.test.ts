import { createWorkspaceClient, type FetchLike, type Lead, type LeadWithEtag } from '../../packages/client/src';

/**
 * Type tests of the typed client: `tsc` (part of `npm test`) fails if a `@ts-expect-error` line
 * compiles or an `expectType` does not hold. The calls sit in a function that is never run; the
 * jest tests below check the run-time side (which routers exist, what goes on the wire).
 */

/** True only when A and B are the same type (not merely assignable either way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | void {}

function recordingFetch(requests: { url: string; method: string; body?: string }[], answer: unknown): FetchLike {
  return async (url, init) => {
    requests.push({ url, method: init.method, body: init.body });
    return { status: 200, headers: new Headers(), text: async () => JSON.stringify(answer) };
  };
}

// Never called: only type-checked.
export function typeChecks() {
  const client = createWorkspaceClient({ baseUrl: 'http://localhost', apiKey: 'wsk_x' });

  // @ts-expect-error NEW is not a lead status
  void client.leads.getAll({ status: 'NEW' });
  // @ts-expect-error unknown fields are refused by the strict input
  void client.leads.getAll({ stauts: 'LOST' });
  // @ts-expect-error getById needs its input
  void client.leads.getById();
  // @ts-expect-error create needs a phone
  void client.leads.create({ name: 'Ada' });
  // @ts-expect-error app-only procedures (exposed: false) are not in the client
  void client.apiKeys.list();
  // @ts-expect-error the REST walk starts at page 1 by itself
  void client.leads.listAll({ page: 2 });

  void client.leads.getAll();
  void client.leads.getAll({ status: 'LOST', pageSize: 100 });
  void client.leads.create({ name: 'Ada', phone: '+442079460123', nextCallAt: new Date() });

  type Created = ReturnType<typeof client.leads.create>;
  expectType<Equal<Created, Promise<Awaited<Created>>>>();
  expectType<Equal<Awaited<Created>['nextCallAt'], Date | null>>();
  expectType<Equal<Awaited<Created>['createdAt'], Date>>();
  expectType<Equal<Awaited<Created>['phones'], string[]>>();
  expectType<Equal<Awaited<ReturnType<typeof client.leads.delete>>, { id: string; deleted: true }>>();
  expectType<Equal<Parameters<typeof client.leads.listAll>[0], { status?: Lead['status'] | undefined; search?: string | undefined; assignedToId?: string | undefined; externalId?: string | undefined; pageSize?: number | undefined } | undefined>>();
  expectType<Equal<ReturnType<typeof client.leads.listAll>, AsyncIterable<Lead>>>();
  expectType<Equal<Lead['nextCallAt'], Date | null>>();

  // Per-call options come second; a read without input takes `undefined` first.
  void client.leads.create({ name: 'Ada', phone: '+442079460123' }, { idempotencyKey: 'order-42', timeoutMs: 5_000, signal: AbortSignal.timeout(1_000) });
  void client.leads.getAll(undefined, { maxRetries: 0 });
  // @ts-expect-error options are an object
  void client.leads.getById({ id: 'lead_1' }, 5_000);
  // Inputs take a Date or an ISO string for a date-time; outputs are Dates only.
  void client.leads.update({ id: 'lead_1', nextCallAt: '2030-01-01T00:00:00.000Z' });

  // The single-lead REST routes.
  expectType<Equal<ReturnType<typeof client.leads.rest.get>, Promise<LeadWithEtag>>>();
  expectType<Equal<LeadWithEtag['lead'], Lead>>();
  expectType<Equal<Lead, Awaited<ReturnType<typeof client.leads.getById>>>>();
  void client.leads.rest.update('lead_1', { notes: 'x' }, { ifMatch: '"v1"' });
  // @ts-expect-error the id is the path's, not the body's
  void client.leads.rest.update('lead_1', { id: 'lead_2' });
}

describe('createWorkspaceClient', () => {
  it('offers every exposed router and no app-only one', () => {
    const client = createWorkspaceClient({ baseUrl: 'http://localhost', apiKey: 'wsk_x' }) as unknown as Record<string, Record<string, unknown>>;

    expect(Object.keys(client).sort()).toEqual(['clients', 'contacts', 'dashboard', 'events', 'imports', 'invoices', 'leads', 'orgMembers', 'tasks', 'webhooks']);
    expect(Object.keys(client.leads!).sort()).toEqual(
      ['assign', 'convert', 'create', 'delete', 'export', 'getAll', 'getById', 'getCalls', 'getDeleted', 'getHistory', 'list', 'listAll', 'logCall', 'rest', 'restore', 'update', 'upsert'],
    );
  });

  it('sends a read as GET with the URL-encoded superjson envelope, and a write as a POST body', async () => {
    const requests: { url: string; method: string; body?: string }[] = [];
    const client = createWorkspaceClient({
      baseUrl: 'http://api.test/',
      apiKey: 'wsk_x',
      fetch: recordingFetch(requests, { result: { data: { json: null } } }),
    });
    const nextCallAt = new Date('2030-01-02T03:04:05.678Z');

    await client.leads.getById({ id: 'lead_1' });
    await client.leads.getAll();
    await client.leads.update({ id: 'lead_1', nextCallAt });

    expect(requests[0]).toEqual({ url: `http://api.test/api/v1/rpc/leads.getById?input=${encodeURIComponent('{"json":{"id":"lead_1"}}')}`, method: 'GET', body: undefined });
    expect(requests[1]).toEqual({ url: 'http://api.test/api/v1/rpc/leads.getAll', method: 'GET', body: undefined });
    expect(requests[2]!.method).toBe('POST');
    expect(JSON.parse(requests[2]!.body!)).toEqual({
      json: { id: 'lead_1', nextCallAt: '2030-01-02T03:04:05.678Z' },
      meta: { values: { nextCallAt: ['Date'] }, v: 1 },
    });
  });
});
