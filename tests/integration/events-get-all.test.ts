import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace } from '../helpers/factories';
import { errorOf, resultOf, rpcGet, rpcPost } from '../helpers/rpc';
import { recordEvents } from '../../src/events/record-events';
import * as contacts from '../../src/db/contacts';
import { untilEventsVisible } from '../helpers/event-horizon';

const ctx = createTestContext();
afterAll(() => ctx.close());

async function write(key: string, name: string, input: unknown) {
  const res = await rpcPost(ctx.app, name, input, key);
  if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.text}`);
  return resultOf(res);
}

async function events(key: string, input?: unknown) {
  const res = await rpcGet(ctx.app, 'events.getAll', input, key);
  if (res.status !== 200) throw new Error(`events.getAll answered ${res.status}: ${res.text}`);
  return resultOf(res);
}

/** Catch-up mode, once every event the workspace committed can show (tests/helpers/event-horizon.ts). */
async function catchUp(ws: { org: { id: string }; key: string }, input: { after: string | null } & Record<string, unknown>) {
  await untilEventsVisible(ctx.db, ws.org.id);
  return events(ws.key, input);
}

/** A workspace with 3 contacts and a task: events contact.created x3, task.created. */
async function workspaceWithEvents() {
  const ws = await createWorkspace(ctx.db);
  for (const name of ['One', 'Two', 'Three']) await write(ws.key, 'contacts.create', { name });
  await write(ws.key, 'tasks.create', { title: 'Follow up' });
  return ws;
}

describe('events.getAll, page mode', () => {
  it('answers the workspace events newest first, with the exact total, dates as Dates', async () => {
    const ws = await workspaceWithEvents();
    const page = await events(ws.key);
    expect(page.pagination).toEqual({ page: 1, pageSize: 50, total: 4, totalPages: 1, hasNextPage: false, hasPrevPage: false });
    expect(page.data.map((e: any) => e.type)).toEqual(['task.created', 'contact.created', 'contact.created', 'contact.created']);
    expect(page.data.map((e: any) => e.data.object.name ?? e.data.object.title)).toEqual(['Follow up', 'Three', 'Two', 'One']);
    const [first] = page.data;
    expect(Object.keys(first).sort()).toEqual(['actor', 'createdAt', 'data', 'id', 'orgId', 'type']);
    expect(first.createdAt).toBeInstanceOf(Date);
    expect(first).toMatchObject({ orgId: ws.org.id, actor: { kind: 'apiKey', id: ws.keyId } });
    expect(first.id).toMatch(/^evt_/);
    const second = await events(ws.key, { page: 2, pageSize: 3 });
    expect(second.data.map((e: any) => e.data.object.name)).toEqual(['One']);
    expect(second.pagination).toMatchObject({ page: 2, total: 4, totalPages: 2, hasPrevPage: true });
  });

  it('filters by type, by several types and by time (half-open range)', async () => {
    const ws = await workspaceWithEvents();
    expect((await events(ws.key, { type: 'task.created' })).data).toHaveLength(1);
    expect((await events(ws.key, { types: ['task.created', 'contact.created'] })).pagination.total).toBe(4);
    const all = (await events(ws.key)).data;
    const oldest = all.at(-1).createdAt as Date;
    expect((await events(ws.key, { createdBefore: oldest })).pagination.total).toBe(0);
    expect((await events(ws.key, { createdAfter: oldest })).pagination.total).toBe(4);
    expect((await events(ws.key, { createdAfter: new Date(Date.now() + 60_000) })).pagination.total).toBe(0);
  });

  it("never shows another workspace's events", async () => {
    const a = await workspaceWithEvents();
    const b = await workspaceWithEvents();
    const seen = (await events(a.key)).data.map((e: any) => e.orgId);
    expect(new Set(seen)).toEqual(new Set([a.org.id]));
    const res = await rpcGet(ctx.app, 'events.getAll', { after: (await events(b.key)).data[0].id }, a.key);
    expect(res.status).toBe(404);
  });
});

describe('events.getAll and scopes', () => {
  it('needs events.read', async () => {
    const ws = await workspaceWithEvents();
    const key = await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read', 'tasks.read'] });
    const res = await rpcGet(ctx.app, 'events.getAll', undefined, key.key);
    expect(res.status).toBe(403);
    expect(errorOf(res).message).toBe('missing scope: events.read');
  });

  it('shows only the families whose read scope the key holds', async () => {
    const ws = await workspaceWithEvents();
    const contactsOnly = await createKey(ctx.db, ws.org.id, { scopes: ['events.read', 'contacts.read'] });
    const page = await events(contactsOnly.key);
    expect(page.pagination.total).toBe(3);
    expect(new Set(page.data.map((e: any) => e.type))).toEqual(new Set(['contact.created']));
    const none = await createKey(ctx.db, ws.org.id, { scopes: ['events.read'] });
    expect((await events(none.key)).pagination.total).toBe(0);
  });

  it('answers 403 when the key asks for a type it may not read', async () => {
    const ws = await workspaceWithEvents();
    const contactsOnly = await createKey(ctx.db, ws.org.id, { scopes: ['events.read', 'contacts.read'] });
    const res = await rpcGet(ctx.app, 'events.getAll', { types: ['contact.created', 'invoice.paid'] }, contactsOnly.key);
    expect(res.status).toBe(403);
    expect(errorOf(res).message).toBe('missing scope: invoices.read (to see invoice.paid events)');
  });
});

describe('events.getAll, catch-up mode (after)', () => {
  it('answers the events after the given one, oldest first, and pages on with nextAfter', async () => {
    const ws = await workspaceWithEvents();
    const first = await catchUp(ws, { after: null, pageSize: 3 });
    expect(first.data.map((e: any) => e.data.object.name ?? e.data.object.title)).toEqual(['One', 'Two', 'Three']);
    expect(first.pagination).toEqual({ page: null, pageSize: 3, hasNextPage: true, nextAfter: first.data[2].id });
    const rest = await catchUp(ws, { after: first.pagination.nextAfter, pageSize: 3 });
    expect(rest.data.map((e: any) => e.type)).toEqual(['task.created']);
    expect(rest.pagination).toEqual({ page: null, pageSize: 3, hasNextPage: false, nextAfter: rest.data[0].id });
    await write(ws.key, 'contacts.create', { name: 'Four' });
    const caughtUp = await catchUp(ws, { after: rest.pagination.nextAfter });
    expect(caughtUp.data.map((e: any) => e.data.object.name)).toEqual(['Four']);
    const nothingNew = await catchUp(ws, { after: caughtUp.pagination.nextAfter });
    expect(nothingNew).toEqual({ data: [], pagination: { page: null, pageSize: 50, hasNextPage: false, nextAfter: caughtUp.pagination.nextAfter } });
  });

  it('combines with filters', async () => {
    const ws = await workspaceWithEvents();
    const tasks = await catchUp(ws, { after: null, type: 'task.created' });
    expect(tasks.data.map((e: any) => e.type)).toEqual(['task.created']);
  });

  it.each([
    ['after with page', { after: null, page: 1 }, 400],
    ['an unknown event id', { after: 'evt_unknown' }, 404],
    ['an unknown type', { type: 'lead.exploded' }, 400],
  ])('answers %s with %i', async (_label, input, status) => {
    const ws = await createWorkspace(ctx.db);
    const res = await rpcGet(ctx.app, 'events.getAll', input, ws.key);
    expect(res.status).toBe(status);
  });
});

describe('events.getAll catch-up never skips an event committed late', () => {
  it('lets a later write commit first without waiting, and shows it only once the earlier one has ended, skipping neither', async () => {
    const ws = await createWorkspace(ctx.db);
    await write(ws.key, 'contacts.create', { name: 'Before' });
    const seen = await catchUp(ws, { after: null });
    expect(seen.data).toHaveLength(1);
    const actor = { kind: 'apiKey', id: ws.keyId };
    // A write that recorded its event and has not committed yet.
    let commitSlow!: () => void;
    const slow = ctx.db.transaction(async (trx) => {
      const contact = await contacts.insert(trx, ws.org.id, { name: 'Slow', phones: [], emails: [], company: null });
      await recordEvents(trx, { orgId: ws.org.id, actor }, [{ type: 'contact.created', object: contact }]);
      await new Promise<void>((resolve) => (commitSlow = resolve));
    });
    while (!commitSlow) await new Promise((resolve) => setTimeout(resolve, 5));
    try {
      // Fast commits while Slow is open: no write of the workspace waits for another's events.
      expect(await write(ws.key, 'contacts.create', { name: 'Fast' })).toMatchObject({ name: 'Fast' });
      // Fast is committed but above the horizon Slow holds: catch-up answers neither yet.
      expect((await events(ws.key, { after: seen.pagination.nextAfter })).data).toEqual([]);
      // A page (not catch-up) shows what is committed.
      expect((await events(ws.key, {})).data.map((e: any) => e.data.object.name)).toEqual(['Fast', 'Before']);
    } finally {
      commitSlow();
      await slow;
    }
    const after = await catchUp(ws, { after: seen.pagination.nextAfter });
    expect(after.data.map((e: any) => e.data.object.name)).toEqual(['Slow', 'Fast']);
  });
});
