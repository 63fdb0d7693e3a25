import { createTestContext, createTestDb } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { rpcPost } from '../helpers/rpc';
import { until } from '../helpers/poll';
import { deliveriesOf, insertEndpoint, startReceiver, startTestWorker, startWorkerProcess, type Receiver } from '../helpers/webhook-fixtures';
import type { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import type { Db } from '../../src/db/knex';

// Several workers on one database: separate pools and processes, so real PostgreSQL only.
describe('webhook workers side by side', () => {
  const ctx = createTestContext();
  const workers: DeliveryWorker[] = [];
  const pools: Db[] = [];
  let receiver: Receiver | undefined;
  let killChild: (() => void) | undefined;
  afterEach(async () => {
    killChild?.();
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await Promise.all(pools.splice(0).map((p) => p.destroy()));
    await receiver?.close();
    receiver = killChild = undefined;
  });
  afterAll(() => ctx.close());

  async function createLead(key: string, i: number) {
    const res = await rpcPost(ctx.app, 'leads.create', { name: `Lead ${i}`, phone: `+4420794600${String(i).padStart(2, '0')}` }, key);
    expect(res.status).toBe(200);
  }

  it('a worker killed mid-delivery loses nothing: another delivers the event once its lease expires, acknowledged once', async () => {
    const ws = await createWorkspace(ctx.db);
    let child: ReturnType<typeof startWorkerProcess> | undefined;
    receiver = await startReceiver((_request, nth) => {
      if (nth > 1) return { status: 200 };
      // The first request arrives from the child: it dies holding the lease, the answer never comes.
      child!.child.kill('SIGKILL');
      return 'hold';
    });
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created'] });
    child = startWorkerProcess({
      WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_LEASE_MS: '2000', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_WORKER_ORG_IDS: ws.org.id,
    });
    killChild = () => child!.child.kill('SIGKILL');
    await createLead(ws.key, 1);

    expect(await until(() => receiver!.requests.length === 1, 20_000)).toBe(true);
    expect(await child.exited.then(() => child!.child.signalCode)).toBe('SIGKILL');
    const [claimed] = await deliveriesOf(ctx.db, ws.org.id);
    expect(claimed).toMatchObject({ status: 'pending', attempts: 1 });
    expect(claimed!.locked_until).not.toBeNull();

    const pool = createTestDb(2);
    pools.push(pool);
    workers.push(startTestWorker(pool, [ws.org.id]));
    const succeeded = async () => (await deliveriesOf(ctx.db, ws.org.id))[0]?.status === 'succeeded';
    expect(await until(succeeded, 10_000)).toBe(true);

    const [delivery] = await deliveriesOf(ctx.db, ws.org.id);
    expect(receiver.requests.map((r) => r.eventId)).toEqual([delivery!.event_id, delivery!.event_id]);
    expect(receiver.acknowledged).toEqual([delivery!.event_id]);
    // The killed claim counts as an attempt; only the second, which got an answer, has a row.
    expect(delivery!.attempts).toBe(2);
    expect(delivery!.attemptRows.map((a) => [a.attempt, a.status_code])).toEqual([[2, 200]]);
  });

  it('SIGTERM while a claimed delivery is in flight: the worker waits for the answer, records it, and exits 0 well within its drain bound', async () => {
    const ws = await createWorkspace(ctx.db);
    let child: ReturnType<typeof startWorkerProcess> | undefined;
    let signalledAt = 0;
    receiver = await startReceiver(() => {
      child!.child.kill('SIGTERM');
      signalledAt = Date.now();
      return { status: 200, delayMs: 1500 };
    });
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created'] });
    child = startWorkerProcess({ WEBHOOK_TIMEOUT_MS: '4000', WEBHOOK_POLL_MS: '20', WEBHOOK_WORKER_ORG_IDS: ws.org.id, IMPORT_WORKER_ORG_IDS: ws.org.id });
    killChild = () => child!.child.kill('SIGKILL');
    await createLead(ws.key, 1);

    expect(await child.exited).toBe(0);
    const drainMs = Date.now() - signalledAt;
    expect(drainMs).toBeGreaterThanOrEqual(1400); // it waited for the answer...
    expect(drainMs).toBeLessThan(4000 + 2000); // ...within WEBHOOK_TIMEOUT_MS + 2 s, under compose's 20 s grace
    const [delivery] = await deliveriesOf(ctx.db, ws.org.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, locked_until: null });
    expect(delivery!.attemptRows.map((a) => [a.attempt, a.status_code])).toEqual([[1, 200]]);
    expect(receiver.acknowledged).toEqual([delivery!.event_id]);
    expect(child.output()).toMatch(/webhook worker stopped/);
  });

  it('SIGTERM while the receiver never answers: the attempt times out, is recorded for a retry with its lease released, and the worker exits 0', async () => {
    const ws = await createWorkspace(ctx.db);
    let child: ReturnType<typeof startWorkerProcess> | undefined;
    receiver = await startReceiver(() => {
      child!.child.kill('SIGTERM');
      return 'hold';
    });
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created'] });
    child = startWorkerProcess({ WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '20', WEBHOOK_RETRY_BASE_MS: '60000', WEBHOOK_WORKER_ORG_IDS: ws.org.id, IMPORT_WORKER_ORG_IDS: ws.org.id });
    killChild = () => child!.child.kill('SIGKILL');
    await createLead(ws.key, 1);

    expect(await child.exited).toBe(0);
    const [delivery] = await deliveriesOf(ctx.db, ws.org.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, locked_until: null });
    expect(delivery!.attemptRows).toEqual([expect.objectContaining({ attempt: 1, status_code: null, error: expect.stringMatching(/time/i) })]);
  });

  it('two workers never send one event to one endpoint at once, and every event is acknowledged exactly once', async () => {
    const ws = await createWorkspace(ctx.db);
    receiver = await startReceiver(() => ({ status: 200, delayMs: 30 + Math.floor(Math.random() * 20) }));
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created'] });
    for (let i = 0; i < 30; i++) await createLead(ws.key, i);

    for (let i = 0; i < 2; i++) {
      const pool = createTestDb(5);
      pools.push(pool);
      workers.push(startTestWorker(pool, [ws.org.id], { concurrency: 8 }));
    }
    const allSucceeded = async () => (await deliveriesOf(ctx.db, ws.org.id)).every((d) => d.status === 'succeeded');
    expect(await until(allSucceeded, 20_000)).toBe(true);

    const deliveries = await deliveriesOf(ctx.db, ws.org.id);
    expect(deliveries).toHaveLength(30);
    expect(receiver.maxInFlightPerEvent()).toBe(1);
    expect(receiver.requests).toHaveLength(30);
    expect([...receiver.acknowledged].sort()).toEqual(deliveries.map((d) => d.event_id).sort());
    expect(deliveries.every((d) => d.attempts === 1 && d.attemptRows.length === 1)).toBe(true);
  });
});
