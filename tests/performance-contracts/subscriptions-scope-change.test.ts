import { createKey, createWorkspace } from '../helpers/factories';
import { subscriptionPath } from '../helpers/sse';
import { liveTestApp } from '../helpers/live-updates';
import { announceCacheChange } from '../../src/db/cache-changes';

const { ctx, auth, write, opened, serializedError } = liveTestApp();

// A key's scopes change only by an operator's edit of the row (no API changes them): the edit and
// its cache-change NOTIFY are written here directly (src/db/cache-changes.ts, behind src/db's
// entry points), so this check lives in the performance-contract suite.
describe('events.onEvent after a key loses scopes', () => {
  it('stops sending what a key loses within a second of the change, and ends the stream when it loses events.read', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = await createKey(ctx.db, ws.org.id, { scopes: ['events.read', 'contacts.read', 'tasks.read'] });
    const stream = await opened(subscriptionPath('events.onEvent'), auth(key.key));
    await ctx.db('api_keys').where({ org_id: ws.org.id, id: key.id }).update({ scopes: ['events.read', 'tasks.read'] });
    await announceCacheChange(ctx.db, { kind: 'key', orgId: ws.org.id, keyId: key.id });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await write(ws.key, 'contacts.create', { name: 'No longer visible' });
    await write(ws.key, 'tasks.create', { title: 'Still visible' });
    // Catch-up shows an event once every older transaction has ended: this suite's bulk loads
    // (seed bulk, the plans' workspaces) can hold that back for seconds, hence 20 s.
    const { value } = (await stream.values(1, 20_000))[0]!;
    expect(value.type).toBe('task.created');
    await ctx.db('api_keys').where({ org_id: ws.org.id, id: key.id }).update({ scopes: ['tasks.read'] });
    const changedAt = Date.now();
    await announceCacheChange(ctx.db, { kind: 'key', orgId: ws.org.id, keyId: key.id });
    const error = await serializedError(stream, 1500);
    expect(Date.now() - changedAt).toBeLessThan(1000);
    expect(error).toMatchObject({ message: 'missing scope: events.read', data: { code: 'FORBIDDEN', httpStatus: 403, path: 'events.onEvent' } });
  });
});
