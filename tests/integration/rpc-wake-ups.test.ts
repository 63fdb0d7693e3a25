import { createTestContext, createTestDb } from '../helpers/test-app';
import { createLocalLive } from '../../src/live/live-updates';
import { createLogger } from '../../src/logger';
import { createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';

// After a call commits, the dispatcher wakes its workspace's live readers (onCommitted) only when
// the call recorded events (ctx.effects, marked as its event rows are built): not after a write
// that records none, a read, a failed write, or an idempotent replay (its handler does not run).
const db = createTestDb();
const live = createLocalLive(db, createLogger('silent'));
const ctx = createTestContext({ db, live });
afterAll(() => ctx.close());

const woken: (string | undefined)[] = [];
live.wakeUps.subscribe((orgId) => woken.push(orgId));
beforeEach(() => {
  woken.length = 0;
});

const newLead = () => ({ name: unique('Lead'), phone: '+442079460018' });

describe('POST: waking live readers after the commit', () => {
  it('wakes the workspace once per write that recorded events: one statement (leads.create) or a transaction (tasks.create)', async () => {
    const ws = await createWorkspace(ctx.db);
    expect((await rpcPost(ctx.app, 'leads.create', newLead(), ws.key)).status).toBe(200);
    expect(woken).toEqual([ws.org.id]);
    expect((await rpcPost(ctx.app, 'tasks.create', { title: unique('Task') }, ws.key)).status).toBe(200);
    expect(woken).toEqual([ws.org.id, ws.org.id]);
  });

  it('wakes no one after a write that records no event (webhooks.create), a read, or a write that failed', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = resultOf<{ id: string }>(await rpcPost(ctx.app, 'leads.create', newLead(), ws.key));
    woken.length = 0;

    expect((await rpcPost(ctx.app, 'webhooks.create', { url: 'https://hooks.example.com/wake', events: ['lead.created'] }, ws.key)).status).toBe(200);
    expect((await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key)).status).toBe(200);
    // A stale expectedUpdatedAt: the lead's row is locked and read, the check throws, nothing commits.
    const stale = await rpcPost(ctx.app, 'leads.update', { id: lead.id, notes: 'late', expectedUpdatedAt: new Date('2020-01-01T00:00:00.000Z') }, ws.key);
    expect(stale.status).toBe(409);
    expect(woken).toEqual([]);
  });

  it('wakes the workspace after an idempotent call, and no one when the same call is replayed', async () => {
    const ws = await createWorkspace(ctx.db);
    const input = newLead();
    const key = unique('idem');
    const first = await rpcPost(ctx.app, 'leads.create', input, ws.key).set('Idempotency-Key', key);
    expect(first.status).toBe(200);
    expect(woken).toEqual([ws.org.id]);
    const replay = await rpcPost(ctx.app, 'leads.create', input, ws.key).set('Idempotency-Key', key);
    expect([replay.status, replay.text]).toEqual([200, first.text]);
    expect(woken).toEqual([ws.org.id]);
  });
});
