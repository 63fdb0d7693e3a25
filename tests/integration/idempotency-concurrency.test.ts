import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { createTestContext, createTestDb } from '../helpers/test-app';
import { createWorkspace, unique } from '../helpers/factories';
import { expectRpcError } from '../helpers/rpc-edge-fixtures';
import { countRows, createIdempotencyRegistry, envelope, postRaw, storedKeys } from '../helpers/idempotency-fixtures';

/**
 * Concurrent requests with one Idempotency-Key need a server that runs transactions side by side:
 * the embedded database runs one at a time, so there the second request simply waits its turn.
 */

const ctx = createTestContext({ db: createTestDb(12) });
const fixtures = createIdempotencyRegistry();
const custom = createTestContext({ registry: fixtures.registry });
let server: Server;
let customServer: Server;
beforeAll(() => {
  server = ctx.app.listen(0);
  customServer = custom.app.listen(0);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => customServer.close(resolve));
  await ctx.close();
  await custom.close();
});
afterEach(() => fixtures.clearGate());

const IN_PROGRESS = 'A request with this Idempotency-Key is in progress; retry once it has finished';

describe('POST with one Idempotency-Key from concurrent requests (real PostgreSQL)', () => {
  it('creates exactly one lead per key over 30 rounds of 6 simultaneous leads.create; the others get 409 or the replay', async () => {
    const ws = await createWorkspace(ctx.db);
    const rounds = 30;
    const statuses: Record<string, number> = {};
    for (let round = 0; round < rounds; round++) {
      const key = randomUUID();
      const body = envelope({ name: unique('Ada'), phone: '+442079460018' });
      const answers = await Promise.all(Array.from({ length: 6 }, () => postRaw(server, 'leads.create', body, ws.key, key)));
      const acted = answers.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined);
      expect(acted).toHaveLength(1);
      for (const res of answers) {
        const kind = res.status === 200 ? (res.headers['idempotent-replayed'] === 'true' ? 'replayed' : 'acted') : String(res.status);
        statuses[kind] = (statuses[kind] ?? 0) + 1;
        if (res.status === 200) expect(res.text).toBe(acted[0]!.text);
        else expect(expectRpcError(res, 'CONFLICT', 'leads.create').message).toBe(IN_PROGRESS);
      }
    }
    expect(statuses.acted).toBe(rounds);
    // The rounds did overlap (else this test would show nothing): some requests found the key busy.
    expect(statuses['409']).toBeGreaterThan(0);
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(rounds);
    expect(await countRows(ctx.db, 'contacts', ws.org.id)).toBe(rounds);
    expect(await storedKeys(ctx.db, ws.org.id)).toHaveLength(rounds);
  });

  it('answers 409 (with Retry-After) to a request arriving while the first with its key is in flight, then replays', async () => {
    const ws = await createWorkspace(custom.db);
    const key = randomUUID();
    const body = envelope({ name: 'Ada' });
    const gate = fixtures.nextGate();
    const first = postRaw(customServer, 'idem.gated', body, ws.key, key).then((res) => res);
    await gate.entered;
    const during = await postRaw(customServer, 'idem.gated', body, ws.key, key);
    expect(expectRpcError(during, 'CONFLICT', 'idem.gated').message).toBe(IN_PROGRESS);
    expect(during.headers['retry-after']).toBe('1');
    // A different body under the key is refused the same way: the key is busy, whatever the input.
    expectRpcError(await postRaw(customServer, 'idem.gated', envelope({ name: 'Grace' }), ws.key, key), 'CONFLICT', 'idem.gated');
    expect(await storedKeys(custom.db, ws.org.id)).toEqual([]);
    gate.open();
    const done = await first;
    expect(done.status).toBe(200);
    const after = await postRaw(customServer, 'idem.gated', body, ws.key, key);
    expect([after.status, after.headers['idempotent-replayed'], after.text]).toEqual([200, 'true', done.text]);
    expect(await countRows(custom.db, 'contacts', ws.org.id)).toBe(1);
  });

  it('does not hold up another key of the same caller while one is in flight', async () => {
    const ws = await createWorkspace(custom.db);
    const gate = fixtures.nextGate();
    const first = postRaw(customServer, 'idem.gated', envelope({ name: 'Ada' }), ws.key, randomUUID()).then((res) => res);
    await gate.entered;
    fixtures.clearGate();
    const other = await postRaw(customServer, 'idem.gated', envelope({ name: 'Grace' }), ws.key, randomUUID());
    expect(other.status).toBe(200);
    gate.open();
    expect((await first).status).toBe(200);
    expect(await countRows(custom.db, 'contacts', ws.org.id)).toBe(2);
  });

  it('never leaves a key stuck: when the in-flight call loses its connection, nothing is stored and a retry acts once', async () => {
    const ws = await createWorkspace(custom.db);
    const key = randomUUID();
    const body = envelope({ name: 'Ada' });
    const gate = fixtures.nextGate();
    const first = postRaw(customServer, 'idem.gated', body, ws.key, key).then((res) => res);
    const pid = await gate.entered;
    await ctx.db.raw('select pg_terminate_backend(?::int)', [pid]);
    gate.open();
    const lost = await first;
    expect([lost.status, lost.body.error.json.data.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect(await storedKeys(custom.db, ws.org.id)).toEqual([]);
    fixtures.clearGate();
    const retry = await postRaw(customServer, 'idem.gated', body, ws.key, key);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await countRows(custom.db, 'contacts', ws.org.id)).toBe(1);
  });
});
