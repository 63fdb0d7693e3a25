import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createWorkspace } from '../helpers/factories';
import { until } from '../helpers/poll';
import { exportBackend, seedLongLeads } from '../helpers/leads-export';
import { createWorkspaceClient, WorkspaceApiError, type Lead } from '../../packages/client/src';

// `api.leads.export()` against the service over Node's own fetch: the leads of the snapshot as
// Lead objects, streamed; errors as WorkspaceApiError; leaving the loop ends the server's export.

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

const clientFor = (apiKey: string) => createWorkspaceClient({ baseUrl, apiKey });

describe('api.leads.export', () => {
  it('yields every matching lead in the list\'s order as a Lead, timestamps revived as Dates, awkward text intact', async () => {
    const ws = await createWorkspace(ctx.db);
    const nextCallAt = new Date('2031-01-02T03:04:05.678Z');
    const first = await createLead(ctx.db, ws.org.id, { status: 'QUALIFIED', nextCallAt, notes: 'a\\b "c"\nd é 😀' });
    await createLead(ctx.db, ws.org.id, { status: 'LOST' });
    const second = await createLead(ctx.db, ws.org.id, { status: 'QUALIFIED' });

    const exported: Lead[] = [];
    for await (const lead of clientFor(ws.key).leads.export({ filters: { status: 'QUALIFIED' } })) exported.push(lead);
    const listed = await clientFor(ws.key).leads.list({ status: 'QUALIFIED', pageSize: 100 });

    expect(exported.map((l) => l.id)).toEqual([first.id, second.id]);
    expect(exported).toEqual(listed.data);
    expect(exported[0]!.nextCallAt).toEqual(nextCallAt);
    expect(exported[0]!.createdAt).toBeInstanceOf(Date);
    expect(exported[0]!.notes).toBe('a\\b "c"\nd é 😀');
  });

  it('throws a WorkspaceApiError with the REST error\'s code, status and issues for a bad filter or a key without leads.read', async () => {
    const ws = await createWorkspace(ctx.db);
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.create'] });
    const drain = async (iterable: AsyncIterable<Lead>) => {
      try {
        for await (const _ of iterable) { /* nothing */ }
      } catch (err) {
        return err as WorkspaceApiError;
      }
      throw new Error('expected the export to fail');
    };

    const bad = await drain(clientFor(ws.key).leads.export({ filters: { status: 'NOPE' as never } }));
    const forbidden = await drain(clientFor(key).leads.export());

    expect(bad).toBeInstanceOf(WorkspaceApiError);
    expect(bad).toMatchObject({ code: 'BAD_REQUEST', status: 400, path: '/api/v1/leads/export' });
    expect(bad.issues?.[0]?.path).toEqual(['status']);
    expect(forbidden).toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });

  it('ends the server\'s export when the loop is left early', async () => {
    const ws = await createWorkspace(ctx.db);
    // About 40 MB: more than every buffer between PostgreSQL and the loop, so the export is still running.
    await seedLongLeads(ctx.db, ws.org.id, 'early', 4000);

    let seen = 0;
    for await (const _ of clientFor(ws.key).leads.export()) {
      seen++;
      if (seen === 1) expect(await until(async () => (await exportBackend(ctx.db, ws.org.id))?.wait_event === 'ClientWrite', 30_000)).toBe(true);
      break;
    }

    expect(seen).toBe(1);
    expect(await until(async () => (await exportBackend(ctx.db, ws.org.id)) === undefined, 30_000)).toBe(true);
  }, 120_000);
});
