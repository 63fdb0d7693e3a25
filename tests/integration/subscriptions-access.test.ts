import { createKey, createLead, createMember, createOrg, createWorkspace } from '../helpers/factories';
import { errorOf } from '../helpers/rpc';
import { openStream, subscriptionPath } from '../helpers/sse';
import { testJwtKeys } from '../helpers/test-secrets';
import { liveTestApp } from '../helpers/live-updates';
import * as apiKeysQueries from '../../src/db/api-keys';
import { signPlaygroundToken } from '../../src/auth/playground-token';
import { signStreamToken, STREAM_TOKEN_TTL_SECONDS } from '../../src/auth/stream-token';

const { ctx, lines, server, auth, write, opened, serializedError } = liveTestApp();

describe('events.onEvent: what a reader may see', () => {
  it("never sends event types whose scope the key lacks, and embeds a resource only with its read scope", async () => {
    const ws = await createWorkspace(ctx.db);
    const narrow = await createKey(ctx.db, ws.org.id, { scopes: ['events.read', 'leads.read'] });
    const stream = await opened(subscriptionPath('events.onEvent'), auth(narrow.key));
    const client = await write(ws.key, 'clients.create', { name: 'Acme' });
    const lead = await createLead(ctx.db, ws.org.id);
    await write(ws.key, 'tasks.create', { title: 'Not for this key' });
    await write(ws.key, 'leads.convert', { id: lead.id, clientId: client.id });
    const { value } = (await stream.values(1))[0]!;
    // client.created and task.created were not sent; lead.converted's client is a reference by id.
    expect(value.type).toBe('lead.converted');
    expect(value.data.client).toEqual({ id: client.id });
    stream.close();
  });

  it("ends a revoked key's streams within a second with a non-retryable UNAUTHORIZED", async () => {
    const ws = await createWorkspace(ctx.db);
    const key = await createKey(ctx.db, ws.org.id);
    const streams = await Promise.all([1, 2].map(() => opened(subscriptionPath('events.onEvent'), auth(key.key))));
    const stats = await opened(subscriptionPath('dashboard.onLeadStats'), auth(key.key));
    const revokedAt = Date.now();
    await apiKeysQueries.revokeInOrg(ctx.db, ws.org.id, key.id);
    for (const stream of streams) {
      const error = await serializedError(stream, 1500);
      expect(error).toMatchObject({ code: -32001, data: { code: 'UNAUTHORIZED', httpStatus: 401 } });
    }
    await stats.nextMessage(); // its first value
    expect((await serializedError(stats, 1500)).data.code).toBe('UNAUTHORIZED');
    expect(Date.now() - revokedAt).toBeLessThan(1000);
  });

  it("ends an expired key's streams within a second of its expiry", async () => {
    const ws = await createWorkspace(ctx.db);
    const expiresAt = new Date(Date.now() + 1500);
    const key = await createKey(ctx.db, ws.org.id, { expiresAt });
    const stream = await opened(subscriptionPath('events.onEvent'), auth(key.key));
    const error = await serializedError(stream, 3000);
    expect(error.message).toBe('API key has expired');
    expect(Date.now() - expiresAt.getTime()).toBeLessThan(1000);
  });
});

describe('POST /api/v1/stream-tokens and ?token=', () => {
  async function mint(credential: string, procedure = 'events.onEvent') {
    return fetch(`${server.url}/api/v1/stream-tokens`, {
      method: 'POST', headers: { ...auth(credential), 'Content-Type': 'application/json' }, body: JSON.stringify({ procedure }),
    });
  }

  it('mints a 5-minute token for one subscription carrying only the scopes it reads with; a native EventSource opens with it alone', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await mint(ws.key);
    expect(res.status).toBe(201);
    const body: any = await res.json();
    expect(body.procedure).toBe('events.onEvent');
    expect(body.scopes.sort()).toEqual(['clients.read', 'contacts.read', 'events.read', 'imports.read', 'invoices.read', 'leads.read', 'tasks.read', 'webhooks.read']);
    const lifetime = Date.parse(body.expiresAt) - Date.now();
    expect(lifetime).toBeGreaterThan((STREAM_TOKEN_TTL_SECONDS - 5) * 1000);
    expect(lifetime).toBeLessThanOrEqual(STREAM_TOKEN_TTL_SECONDS * 1000);
    expect(body.token).not.toContain(ws.key);
    const stream = await opened(subscriptionPath('events.onEvent', {}, { token: body.token }), {});
    await write(ws.key, 'contacts.create', { name: 'Seen through a token' });
    expect((await stream.values(1))[0]!.value.data.object.name).toBe('Seen through a token');
    stream.close();
  });

  it('opens only its own subscription: not another, not an action endpoint, not the REST list', async () => {
    const ws = await createWorkspace(ctx.db);
    const { token } = await (await mint(ws.key, 'dashboard.onLeadStats')).json() as { token: string };
    const other = await openStream(server.url, subscriptionPath('events.onEvent', {}, { token }), {});
    expect(other.status).toBe(403);
    await other.ended();
    expect(JSON.parse(other.body()).error.json.message).toBe('This stream token opens dashboard.onLeadStats only');
    const asBearer = await fetch(`${server.url}/api/v1/rpc/leads.getAll`, { headers: auth(token) });
    expect(asBearer.status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/leads`, { headers: auth(token) })).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/rpc/leads.getAll?token=${token}`)).status).toBe(401);
  });

  it('refuses an expired token (401), a token beside an Authorization header (400), an API key in the URL (400)', async () => {
    const ws = await createWorkspace(ctx.db);
    const principal = { kind: 'apiKey' as const, id: ws.keyId, orgId: ws.org.id, memberId: null, scopes: new Set(['events.read']), org: { tier: 'BUSINESS' as const, features: [], phoneRegion: 'GB' } };
    const old = signStreamToken(testJwtKeys.token, { procedure: 'events.onEvent', scopes: ['events.read'], principal, sourceExpiresAt: null }, Date.now() - 301_000);
    const expired = await fetch(`${server.url}${subscriptionPath('events.onEvent', {}, { token: old.token })}`);
    expect(expired.status).toBe(401);
    expect(errorOf({ body: await expired.json() }).message).toBe('The stream token has expired');
    const { token } = await (await mint(ws.key)).json() as { token: string };
    expect((await fetch(`${server.url}${subscriptionPath('events.onEvent', {}, { token })}`, { headers: auth(ws.key) })).status).toBe(400);
    for (const param of ['token', 'api_key', 'access_token']) {
      const inUrl = await fetch(`${server.url}${subscriptionPath('events.onEvent', {}, { [param]: ws.key })}`);
      expect(inUrl.status).toBe(400);
      expect(errorOf({ body: await inUrl.json() }).message).toMatch(/^An API key in a URL is refused/);
    }
  });

  it("is refused to a key without the subscription's scope (403), for an unknown subscription (404), to a FREE workspace (403)", async () => {
    const ws = await createWorkspace(ctx.db);
    const noEvents = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    expect((await mint(noEvents.key)).status).toBe(403);
    expect((await mint(ws.key, 'events.getAll')).status).toBe(404);
    const free = await createWorkspace(ctx.db, { tier: 'FREE' });
    expect((await mint(free.key)).status).toBe(403);
    expect((await fetch(`${server.url}/api/v1/stream-tokens`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } })).status).toBe(401);
  });

  it("ends a token's streams when the key it was minted with is revoked", async () => {
    const ws = await createWorkspace(ctx.db);
    const key = await createKey(ctx.db, ws.org.id);
    const { token } = await (await mint(key.key)).json() as { token: string };
    const stream = await opened(subscriptionPath('events.onEvent', {}, { token }), {});
    await apiKeysQueries.revokeInOrg(ctx.db, ws.org.id, key.id);
    expect((await serializedError(stream, 1500)).message).toBe('API key has been revoked');
  });

  it("lives no longer than the playground token it was minted with", async () => {
    const org = await createOrg(ctx.db);
    const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
    const playground = signPlaygroundToken(testJwtKeys.token, { memberId: member.id, orgId: org.id, scopes: ['events.read', 'leads.read'] }, Date.now() - 3600_000 + 2000);
    const res = await mint(playground.token);
    expect(res.status).toBe(201);
    const body: any = await res.json();
    expect(body.scopes.sort()).toEqual(['events.read', 'leads.read']);
    expect(Date.parse(body.expiresAt)).toBe(playground.expiresAt.getTime());
    const stream = await opened(subscriptionPath('events.onEvent', {}, { token: body.token }), {});
    expect((await serializedError(stream, 4000)).data.code).toBe('UNAUTHORIZED');
  });

  it('never writes a token or a key from the URL into the request log', async () => {
    const ws = await createWorkspace(ctx.db);
    const { token } = await (await mint(ws.key)).json() as { token: string };
    const stream = await opened(subscriptionPath('events.onEvent', {}, { token }), {});
    stream.close();
    await fetch(`${server.url}${subscriptionPath('events.onEvent', {}, { api_key: ws.key })}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const log = lines.join('');
    expect(log).toContain('/api/v1/rpc/events.onEvent');
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.split('.')[2]);
    expect(log).not.toContain(ws.key);
  });
});
