import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { startWorkerProcess } from '../helpers/webhook-fixtures';
import { CSV, startTestRunner, uploadImport, validCsv, waitForImport } from '../helpers/imports';
import { until } from '../helpers/poll';
import type { ImportRunner } from '../../src/imports/import-runner';

const ctx = createTestContext();
const runners: ImportRunner[] = [];
afterAll(async () => {
  for (const runner of runners) await runner.stop();
  await ctx.close();
});

const ROWS = 1500;
/** A file of valid rows with a bad one every 100 rows (so the errors file is compared too). */
const FILE = validCsv(ROWS).split('\n').map((line, i) => (i > 0 && i % 100 === 0 ? 'Bad,not a phone,,,,' : line)).join('\n');

/** What an import leaves that must not depend on how often it was interrupted (ids and times aside). */
async function outcomeOf(orgId: string, key: string, importId: string) {
  const leads = await ctx.db('leads as l').join('contacts as c', function join() {
    this.on('c.org_id', 'l.org_id').andOn('c.id', 'l.contact_id');
  }).where('l.org_id', orgId).orderBy('c.name').select('c.name', 'c.phones', 'c.emails', 'c.company', 'l.status', 'l.source');
  const json = await ctx.db('lead_json').where({ org_id: orgId }).count({ n: '*' });
  const counts = await ctx.db('lead_counts').where({ org_id: orgId }).groupBy('status').select('status').sum({ n: 'n' }).orderBy('status');
  const events = await ctx.db('events').where({ org_id: orgId }).groupBy('type').select('type').count({ n: '*' }).orderBy('type');
  const perObject = await ctx.db('events').where({ org_id: orgId }).whereIn('type', ['lead.created', 'contact.created'])
    .groupBy('object_id').havingRaw('count(*) > 1').select('object_id');
  const job = (await request(ctx.app).get(`/api/v1/imports/${importId}`).set('Authorization', `Bearer ${key}`)).body;
  const errors = (await request(ctx.app).get(`/api/v1/imports/${importId}/errors`).set('Authorization', `Bearer ${key}`)).text;
  return { leads, json: Number(json[0]!.n), counts: (counts as { status: string; n: string }[]).map((c) => [c.status, Number(c.n)]), events: (events as { type: string; n: string }[]).map((e) => [e.type, Number(e.n)]), perObject, status: job.status, rows: job.rows, errors };
}

it('a worker killed mid-import and started again gives what an uninterrupted import gives: no row twice, none missing', async () => {
  const killed = await createWorkspace(ctx.db);
  const upload = await uploadImport(ctx.app, killed.key, FILE, { type: CSV });
  expect(upload.status).toBe(202);
  const worker = startWorkerProcess({
    IMPORT_WORKER_ORG_IDS: killed.org.id, WEBHOOK_WORKER_ORG_IDS: killed.org.id, IMPORT_BATCH_ROWS: '10', IMPORT_POLL_MS: '20', IMPORT_LEASE_MS: '1000',
  });
  const processed = async () => (await ctx.db('imports').where({ org_id: killed.org.id, id: upload.body.id }).first('rows_processed')).rows_processed as number;
  expect(await until(async () => (await processed()) >= 200, 60_000, 5)).toBe(true);
  worker.child.kill('SIGKILL');
  await worker.exited;
  const atKill = await processed();
  expect(atKill).toBeLessThan(ROWS);
  // The job is still held by the dead worker's lease; a new worker takes it up at its cursor once it runs out.
  runners.push(startTestRunner(ctx.db, [killed.org.id], { batchRows: 10, leaseMs: 1000 }));
  const resumed = await waitForImport(ctx.app, killed.key, upload.body.id, 120_000);
  expect(resumed.status).toBe('succeeded');

  const whole = await createWorkspace(ctx.db);
  const again = await uploadImport(ctx.app, whole.key, FILE, { type: CSV });
  runners.push(startTestRunner(ctx.db, [whole.org.id], { batchRows: 10 }));
  await waitForImport(ctx.app, whole.key, again.body.id, 120_000);

  const [a, b] = [await outcomeOf(killed.org.id, killed.key, upload.body.id), await outcomeOf(whole.org.id, whole.key, again.body.id)];
  expect(a.rows).toEqual({ total: ROWS, processed: ROWS, created: ROWS - 15, updated: 0, failed: 15 });
  expect(a.leads).toHaveLength(ROWS - 15);
  expect(a.perObject).toEqual([]);
  expect(a).toEqual(b);
}, 240_000);
