import { Readable } from 'node:stream';
import request from 'supertest';
import { createWorkspaceClient, WorkspaceApiError } from '../../packages/client/src';
import { createTestContext } from '../helpers/test-app';
import { ALL_SCOPES, createKey, createWorkspace } from '../helpers/factories';
import { CSV, startTestRunner, uploadImport, validCsv, waitForImport } from '../helpers/imports';
import { errorOf, resultOf, rpcGet, rpcPost } from '../helpers/rpc';
import { listen, openStream, subscriptionPath } from '../helpers/sse';
import type { ImportRunner } from '../../src/imports/import-runner';

const ctx = createTestContext();
let runner: ImportRunner | undefined;
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
});
afterAll(() => ctx.close());

describe('imports.getById, imports.getAll, imports.cancel', () => {
  it('read with imports.read and cancel with imports.create; another scope is a 403 naming it', async () => {
    const ws = await createWorkspace(ctx.db);
    const upload = await uploadImport(ctx.app, ws.key, validCsv(2), { type: CSV });
    const { key: noRead } = await createKey(ctx.db, ws.org.id, { scopes: ALL_SCOPES.filter((s) => s !== 'imports.read') });
    for (const res of [await rpcGet(ctx.app, 'imports.getById', { id: upload.body.id }, noRead), await rpcGet(ctx.app, 'imports.getAll', {}, noRead)]) {
      expect(res.status).toBe(403);
      expect(errorOf(res).message).toContain('imports.read');
    }
    const { key: noCreate } = await createKey(ctx.db, ws.org.id, { scopes: ALL_SCOPES.filter((s) => s !== 'imports.create') });
    const refused = await rpcPost(ctx.app, 'imports.cancel', { id: upload.body.id }, noCreate);
    expect(refused.status).toBe(403);
    const page = resultOf(await rpcGet(ctx.app, 'imports.getAll', {}, ws.key));
    expect(page.data.map((i: { id: string }) => i.id)).toEqual([upload.body.id]);
    expect(page.data[0].createdAt).toBeInstanceOf(Date);
  });

  it("answers 404 to another workspace's import id, and leaves it as it was", async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const upload = await uploadImport(ctx.app, ws.key, validCsv(2), { type: CSV });
    expect((await rpcGet(ctx.app, 'imports.getById', { id: upload.body.id }, other.key)).status).toBe(404);
    expect((await rpcPost(ctx.app, 'imports.cancel', { id: upload.body.id }, other.key)).status).toBe(404);
    expect(resultOf(await rpcGet(ctx.app, 'imports.getById', { id: upload.body.id }, ws.key)).status).toBe('queued');
  });

  it('a cancelled running import keeps the rows its committed batches wrote, and says how many', async () => {
    const ws = await createWorkspace(ctx.db);
    const upload = await uploadImport(ctx.app, ws.key, validCsv(3000), { type: CSV });
    runner = startTestRunner(ctx.db, [ws.org.id], { batchRows: 10 });
    const started = async () => resultOf(await rpcGet(ctx.app, 'imports.getById', { id: upload.body.id }, ws.key)).rows.processed >= 50;
    for (let i = 0; i < 2000 && !(await started()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const cancelled = resultOf(await rpcPost(ctx.app, 'imports.cancel', { id: upload.body.id }, ws.key));
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.rows.created).toBeGreaterThanOrEqual(50);
    expect(cancelled.rows.created).toBeLessThan(3000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const leads = await ctx.db('leads').where({ org_id: ws.org.id }).count({ n: '*' });
    expect(Number(leads[0]!.n)).toBe(cancelled.rows.created);
    expect(resultOf(await rpcGet(ctx.app, 'imports.getById', { id: upload.body.id }, ws.key))).toEqual(cancelled);
  });
});

describe('imports.onProgress', () => {
  it('streams the import now, then as it moves, up to its end', async () => {
    const ws = await createWorkspace(ctx.db);
    const upload = await uploadImport(ctx.app, ws.key, validCsv(30), { type: CSV });
    const server = await listen(ctx.app);
    try {
      const stream = await openStream(server.url, subscriptionPath('imports.onProgress', { id: upload.body.id }), { Authorization: `Bearer ${ws.key}` });
      expect(stream.status).toBe(200);
      expect((await stream.next()).event).toBe('connected');
      const [first] = await stream.values(1);
      expect(first!.value).toMatchObject({ id: upload.body.id, status: 'queued' });
      runner = startTestRunner(ctx.db, [ws.org.id], { batchRows: 5 });
      let last = first!.value;
      while (last.status !== 'succeeded') last = (await stream.values(1, 10_000))[0]!.value;
      expect(last.rows).toEqual({ total: 30, processed: 30, created: 30, updated: 0, failed: 0 });
      expect(await waitForImport(ctx.app, ws.key, upload.body.id)).toMatchObject({ status: 'succeeded' });
    } finally {
      await server.close();
    }
  });

  it("answers 404 to another workspace's import", async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createWorkspace(ctx.db);
    const upload = await uploadImport(ctx.app, ws.key, validCsv(1), { type: CSV });
    const res = await request(ctx.app).get(subscriptionPath('imports.onProgress', { id: upload.body.id })).set('Authorization', `Bearer ${other.key}`).set('Accept', 'text/event-stream');
    expect(res.status).toBe(404);
  });
});

describe('two imports upserting the same ids at once', () => {
  it('end in one lead per id', async () => {
    const ws = await createWorkspace(ctx.db);
    const file = ['externalId,name,phone', ...Array.from({ length: 40 }, (_, i) => `id-${i},Lead ${i},+4420794${String(70000 + i)}`)].join('\n');
    const uploads = await Promise.all([0, 1].map(() => uploadImport(ctx.app, ws.key, file, { type: CSV, query: { resource: 'leads', mode: 'upsert' } })));
    runner = startTestRunner(ctx.db, [ws.org.id], { batchRows: 7 });
    const done = await Promise.all(uploads.map((u) => waitForImport(ctx.app, ws.key, u.body.id)));
    expect(done.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    expect(done[0].rows.created + done[1].rows.created).toBe(40);
    expect(done[0].rows.updated + done[1].rows.updated).toBe(40);
    const perId = await ctx.db('leads').where({ org_id: ws.org.id }).groupBy('external_id').select('external_id').count({ n: '*' });
    expect(perId).toHaveLength(40);
    expect(perId.every((r) => Number(r.n) === 1)).toBe(true);
    const created = await ctx.db('events').where({ org_id: ws.org.id, type: 'lead.created' }).count({ n: '*' });
    expect(Number(created[0]!.n)).toBe(40);
  });
});

describe('the client package: api.imports.create and api.imports.wait', () => {
  it('uploads a Node stream as it is read, and waits for the import to end', async () => {
    const ws = await createWorkspace(ctx.db);
    const server = await listen(ctx.app);
    try {
      const api = createWorkspaceClient({ baseUrl: server.url, apiKey: ws.key });
      const file = Readable.from([Buffer.from('name,phone\n'), Buffer.from('Ana,+442079460041\nBo,bad\n')]);
      const job = await api.imports.create(file, { format: 'csv' });
      expect(job).toMatchObject({ status: 'queued', rows: { total: 2 } });
      expect(job.createdAt).toBeInstanceOf(Date);
      runner = startTestRunner(ctx.db, [ws.org.id]);
      const done = await api.imports.wait(job.id, { intervalMs: 20 });
      expect(done).toMatchObject({ status: 'succeeded', rows: { created: 1, failed: 1 } });
      const refused = await api.imports.create('name,fax\n').catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(WorkspaceApiError);
      expect((refused as WorkspaceApiError).status).toBe(400);
    } finally {
      await server.close();
    }
  });
});
