import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { resultOf } from '../helpers/rpc';
import { expectRpcError } from '../helpers/rpc-edge-fixtures';
import { countRows, createIdempotencyRegistry, envelope, expireKey, postRaw, storedKeys } from '../helpers/idempotency-fixtures';
import { sweepExpiredIdempotencyKeys, startIdempotencyCleanup } from '../../src/idempotency/expired-cleanup';
import { createLogger } from '../../src/logger';
import { pollUntil } from '../helpers/cli-harness';
import { testJwtKeys } from '../helpers/test-secrets';
import { signPlaygroundToken } from '../../src/auth/playground-token';

const ctx = createTestContext();
const fixtures = createIdempotencyRegistry();
const custom = createTestContext({ registry: fixtures.registry });
afterAll(async () => {
  await ctx.close();
  await custom.close();
});

function createLead(apiKey: string, idempotencyKey: string | null, name = unique('Ada'), phone = '+442079460018') {
  return postRaw(ctx.app, 'leads.create', envelope({ name, phone }), apiKey, idempotencyKey);
}

describe('POST leads.create with an Idempotency-Key', () => {
  it('replays the first answer (same status and body, Idempotent-Replayed: true) and creates exactly one lead', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = randomUUID();
    const body = envelope({ name: unique('Ada'), phone: '+442079460018', nextCallAt: '2026-12-01T09:30:00Z' });
    const first = await postRaw(ctx.app, 'leads.create', body, ws.key, key);
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await postRaw(ctx.app, 'leads.create', body, ws.key, key);
    const third = await postRaw(ctx.app, 'leads.create', body, ws.key, key);
    for (const replay of [again, third]) {
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(first.text);
    }
    expect(resultOf(again).nextCallAt).toEqual(new Date('2026-12-01T09:30:00Z'));
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(1);
    expect(await countRows(ctx.db, 'contacts', ws.org.id)).toBe(1);
    const [row, ...others] = await storedKeys(ctx.db, ws.org.id);
    expect(others).toEqual([]);
    expect(row).toMatchObject({ principal_id: ws.keyId, idempotency_key: key, procedure: 'leads.create', response_status: 200 });
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(24 * 60 * 60 * 1000);
  });

  it('creates one lead from simultaneous requests with one key on either database (the others: 409 or the replay)', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = randomUUID();
    const body = envelope({ name: unique('Ada'), phone: '+442079460018' });
    const answers = await Promise.all(Array.from({ length: 4 }, () => postRaw(ctx.app, 'leads.create', body, ws.key, key)));
    expect(answers.filter((r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const res of answers) expect([200, 409]).toContain(res.status);
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(1);
  });

  it('acts on every call without the header (the header is what makes a retry safe)', async () => {
    const ws = await createWorkspace(ctx.db);
    const name = unique('Ada');
    expect((await createLead(ws.key, null, name)).status).toBe(200);
    expect((await createLead(ws.key, null, name)).status).toBe(200);
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(2);
    expect(await storedKeys(ctx.db, ws.org.id)).toEqual([]);
  });

  it('answers 422 UNPROCESSABLE_CONTENT for the same key with a different body, and acts no more', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = randomUUID();
    expect((await createLead(ws.key, key, 'Ada')).status).toBe(200);
    const res = await createLead(ws.key, key, 'Grace');
    const { message } = expectRpcError(res, 'UNPROCESSABLE_CONTENT', 'leads.create');
    expect(message).toBe('This Idempotency-Key was already used for another request (leads.create with a different body); use a new key for a new request');
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(1);
  });

  it('answers 422 naming the first procedure when the same key is sent to another procedure', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = randomUUID();
    expect((await createLead(ws.key, key)).status).toBe(200);
    const res = await postRaw(ctx.app, 'contacts.create', envelope({ name: 'Ada' }), ws.key, key);
    expect(expectRpcError(res, 'UNPROCESSABLE_CONTENT', 'contacts.create').message).toMatch(/another request \(leads\.create\)/);
    expect(await countRows(ctx.db, 'contacts', ws.org.id)).toBe(1);
  });

  it('keeps keys per API key: the same key and body on another key of the workspace acts again', async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createKey(ctx.db, ws.org.id);
    const key = randomUUID();
    const name = unique('Ada');
    const mine = await createLead(ws.key, key, name);
    const theirs = await createLead(other.key, key, name);
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(resultOf(theirs).id).not.toBe(resultOf(mine).id);
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(2);
    expect((await storedKeys(ctx.db, ws.org.id)).map((r) => r.principal_id).sort()).toEqual([ws.keyId, other.id].sort());
  });

  it('keeps keys per playground token: a token and its member key act apart, and the token retry replays', async () => {
    const ws = await createWorkspace(ctx.db);
    const issued = signPlaygroundToken(testJwtKeys.token, { memberId: ws.member.id, orgId: ws.org.id, scopes: ['leads.create'] });
    const key = randomUUID();
    const name = unique('Ada');
    const byToken = await createLead(issued.token, key, name);
    const byKey = await createLead(ws.key, key, name);
    const retry = await createLead(issued.token, key, name);
    expect([byToken.status, byKey.status, byKey.headers['idempotent-replayed']]).toEqual([200, 200, undefined]);
    expect([retry.headers['idempotent-replayed'], retry.text]).toEqual(['true', byToken.text]);
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(2);
    expect((await storedKeys(ctx.db, ws.org.id)).map((r) => r.principal_id).sort()).toEqual([issued.id, ws.keyId].sort());
  });

  it('keeps keys per workspace: another workspace using the same key is not refused or replayed', async () => {
    const a = await createWorkspace(ctx.db);
    const b = await createWorkspace(ctx.db);
    const key = randomUUID();
    expect((await createLead(a.key, key, 'Ada')).status).toBe(200);
    const res = await createLead(b.key, key, 'Grace');
    expect(res.status).toBe(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(resultOf(res).name).toBe('Grace');
  });

  it('acts again once the stored answer has expired, and stores the new one', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = randomUUID();
    const name = unique('Ada');
    const first = await createLead(ws.key, key, name);
    await expireKey(ctx.db, ws.org.id, key);
    const second = await createLead(ws.key, key, name);
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(resultOf(second).id).not.toBe(resultOf(first).id);
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(2);
    const replay = await createLead(ws.key, key, name);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(second.text);
    const [row] = await storedKeys(ctx.db, ws.org.id);
    expect(row.expires_at.getTime()).toBeGreaterThan(Date.now());
  });

  it('acts on a different body under an expired key (no 422 for a key past its 24 hours)', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = randomUUID();
    expect((await createLead(ws.key, key, 'Ada')).status).toBe(200);
    await expireKey(ctx.db, ws.org.id, key);
    const res = await createLead(ws.key, key, 'Grace');
    expect(res.status).toBe(200);
    expect(resultOf(res).name).toBe('Grace');
  });
});

describe('which answers are stored', () => {
  it('replays a stored 409 even after the state that caused it changed (tasks.complete on a DONE task)', async () => {
    const ws = await createWorkspace(ctx.db);
    const task = resultOf(await postRaw(ctx.app, 'tasks.create', envelope({ title: 'Call Ada' }), ws.key, null));
    expect((await postRaw(ctx.app, 'tasks.complete', envelope({ id: task.id }), ws.key, null)).status).toBe(200);
    const key = randomUUID();
    const refused = await postRaw(ctx.app, 'tasks.complete', envelope({ id: task.id }), ws.key, key);
    expectRpcError(refused, 'CONFLICT', 'tasks.complete');
    await ctx.db('tasks').where({ org_id: ws.org.id, id: task.id }).update({ status: 'OPEN', completed_at: null });
    const replay = await postRaw(ctx.app, 'tasks.complete', envelope({ id: task.id }), ws.key, key);
    expect(replay.status).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(refused.text);
    expect(await ctx.db('tasks').where({ org_id: ws.org.id, id: task.id }).first('status')).toEqual({ status: 'OPEN' });
  });

  it('replays a stored 404 (leads.delete of a lead already deleted)', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = resultOf(await createLead(ws.key, null));
    expect((await postRaw(ctx.app, 'leads.delete', envelope({ id: lead.id }), ws.key, null)).status).toBe(200);
    const key = randomUUID();
    const missing = await postRaw(ctx.app, 'leads.delete', envelope({ id: lead.id }), ws.key, key);
    expectRpcError(missing, 'NOT_FOUND', 'leads.delete');
    const replay = await postRaw(ctx.app, 'leads.delete', envelope({ id: lead.id }), ws.key, key);
    expect(replay.status).toBe(404);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(missing.text);
  });

  it('rolls back the writes of a handler that refused with 409, stores the 409 and replays it without running again', async () => {
    const ws = await createWorkspace(custom.db);
    const key = randomUUID();
    const before = fixtures.calls.writeThenRefuse;
    const refused = await postRaw(custom.app, 'idem.writeThenRefuse', envelope({ name: 'Ada' }), ws.key, key);
    expect(expectRpcError(refused, 'CONFLICT', 'idem.writeThenRefuse').message).toBe('refused after writing Ada');
    const replay = await postRaw(custom.app, 'idem.writeThenRefuse', envelope({ name: 'Ada' }), ws.key, key);
    expect([replay.status, replay.headers['idempotent-replayed'], replay.text]).toEqual([409, 'true', refused.text]);
    expect(fixtures.calls.writeThenRefuse - before).toBe(1);
    expect(await countRows(custom.db, 'contacts', ws.org.id)).toBe(0);
    expect((await storedKeys(custom.db, ws.org.id)).map((r) => r.response_status)).toEqual([409]);
  });

  it('does not store an unexpected failure (500): its writes roll back and a retry with the key runs again', async () => {
    const ws = await createWorkspace(custom.db);
    const key = randomUUID();
    const before = fixtures.calls.explode;
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await postRaw(custom.app, 'idem.explode', envelope({ name: 'Ada' }), ws.key, key);
      expectRpcError(res, 'INTERNAL_SERVER_ERROR', 'idem.explode');
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(fixtures.calls.explode - before).toBe(2);
    expect(await countRows(custom.db, 'contacts', ws.org.id)).toBe(0);
    expect(await storedKeys(custom.db, ws.org.id)).toEqual([]);
  });

  it('does not store a 400 from input validation: the corrected retry with the same key acts', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = randomUUID();
    const invalid = await postRaw(ctx.app, 'leads.create', envelope({ name: 'Ada' }), ws.key, key);
    expectRpcError(invalid, 'BAD_REQUEST', 'leads.create');
    expect(await storedKeys(ctx.db, ws.org.id)).toEqual([]);
    const corrected = await createLead(ws.key, key, 'Ada');
    expect(corrected.status).toBe(200);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(1);
  });

  it('does not store a 400 raised by the handler (a phone invalid in the region): the corrected retry acts', async () => {
    const ws = await createWorkspace(ctx.db, { region: 'US' });
    const key = randomUUID();
    expectRpcError(await createLead(ws.key, key, 'Ada', '020 7946 0018'), 'BAD_REQUEST', 'leads.create');
    const corrected = await createLead(ws.key, key, 'Ada', '(201) 555-0123');
    expect(corrected.status).toBe(200);
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(1);
  });

  it('does not store refusals before the handler (403 missing scope)', async () => {
    const ws = await createWorkspace(ctx.db);
    const readOnly = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    const key = randomUUID();
    expectRpcError(await createLead(readOnly.key, key), 'FORBIDDEN', 'leads.create');
    expect(await storedKeys(ctx.db, ws.org.id)).toEqual([]);
  });
});

describe('the Idempotency-Key header itself', () => {
  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'clé-1'],
    ['a tab', 'key\tone'],
    ['an empty value', ''],
  ])('answers 400 in the envelope for %s, and acts not', async (_label, value) => {
    const ws = await createWorkspace(ctx.db);
    const res = await createLead(ws.key, value);
    const { message } = expectRpcError(res, 'BAD_REQUEST', 'leads.create');
    expect(message).toBe('The Idempotency-Key header must be 1 to 255 printable ASCII characters (a UUID, say)');
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(0);
  });

  it('accepts 255 printable characters, spaces and punctuation included', async () => {
    const ws = await createWorkspace(ctx.db);
    const key = `a b!~${'x'.repeat(250)}`;
    expect((await createLead(ws.key, key)).status).toBe(200);
    expect((await storedKeys(ctx.db, ws.org.id))[0].idempotency_key).toBe(key);
  });

  it('answers 400 when the header is given twice', async () => {
    const ws = await createWorkspace(ctx.db);
    const res = await request(ctx.app)
      .post('/api/v1/rpc/leads.create')
      .set('Content-Type', 'application/json')
      .set('Authorization', `Bearer ${ws.key}`)
      // superagent sends an array as two header lines; its types admit only a string.
      .set('Idempotency-Key', ['one', 'two'] as unknown as string)
      .send(envelope({ name: 'Ada', phone: '+442079460018' }));
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.create').message).toBe('Give the Idempotency-Key header once');
    expect(await countRows(ctx.db, 'leads', ws.org.id)).toBe(0);
  });

  it('is ignored on GET, even when invalid: reads answer as usual and nothing is stored', async () => {
    const ws = await createWorkspace(ctx.db);
    for (const value of ['read-1', 'read-1', 'k'.repeat(300)]) {
      const res = await request(ctx.app)
        .get('/api/v1/rpc/leads.getAll')
        .set('Authorization', `Bearer ${ws.key}`)
        .set('Idempotency-Key', value);
      expect(res.status).toBe(200);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await storedKeys(ctx.db, ws.org.id)).toEqual([]);
  });
});

describe('cleaning up expired keys', () => {
  async function storedKeyNames(orgId: string): Promise<string[]> {
    return (await storedKeys(ctx.db, orgId)).map((r) => r.idempotency_key).sort();
  }

  it('deletes expired records in batches and keeps live ones', async () => {
    const ws = await createWorkspace(ctx.db);
    const keys = ['e1', 'e2', 'e3', 'e4', 'e5', 'live'];
    for (const key of keys) expect((await createLead(ws.key, key)).status).toBe(200);
    for (const key of keys.slice(0, 5)) await expireKey(ctx.db, ws.org.id, key);
    const deleted = await sweepExpiredIdempotencyKeys(ctx.db, { batchSize: 2 });
    expect(deleted).toBeGreaterThanOrEqual(5);
    expect(await storedKeyNames(ws.org.id)).toEqual(['live']);
  });

  it('runs in the background from start until stop', async () => {
    const ws = await createWorkspace(ctx.db);
    for (const key of ['old', 'live']) expect((await createLead(ws.key, key)).status).toBe(200);
    await expireKey(ctx.db, ws.org.id, 'old');
    const cleanup = startIdempotencyCleanup({ db: ctx.db, logger: createLogger('silent'), intervalMs: 10 });
    try {
      expect(await pollUntil(() => storedKeyNames(ws.org.id), (names) => names.length === 1, 10_000)).toEqual(['live']);
    } finally {
      await cleanup.stop();
    }
  });
});
