import request from 'supertest';
import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { errorOf, resultOf, rpcGet, rpcPost } from '../helpers/rpc';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { purgeExpiredEvents } from '../../src/events/retention';
import { purgeExpiredTrash } from '../../src/trash/purge';
import { startTestRunner, uploadImport, validCsv, waitForImport, CSV } from '../helpers/imports';
import { TABLES } from '../../src/db/tables';

// The change history of leads, contacts and clients (issue 50): leads.getHistory and the others,
// through real HTTP. Each change names its actor as events do, its procedure and the request id
// the response's X-Request-Id header gave; the fields' old and new values are exact.

const ctx = createTestContext();
afterAll(() => ctx.close());

type Workspace = Awaited<ReturnType<typeof createWorkspace>>;

/** A call's answer and the request id its response's header gave. */
async function call(name: string, input: unknown, key: string) {
  const res = await rpcPost(ctx.app, name, input, key);
  expect(res.status).toBe(200);
  return { result: resultOf(res), requestId: res.headers['x-request-id'] as string };
}

async function historyOf(name: string, input: Record<string, unknown>, key: string) {
  const res = await rpcGet(ctx.app, name, input, key);
  expect(res.status).toBe(200);
  return resultOf<{ data: any[]; pagination: { pageSize: number; hasNextPage: boolean; nextCursor: string | null } }>(res);
}

/** A member's playground token (as a member calls the API: the developer page mints it), with these scopes. */
async function memberToken(ws: Workspace, scopes: string[]): Promise<string> {
  const session = signMemberSession(testJwtKeys.session, { memberId: ws.member.id, orgId: ws.org.id }).token;
  const res = await request(ctx.app).post('/api/v1/playground/token').set('Authorization', `Bearer ${session}`).send({ scopes });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

/** The actor the workspace's events name for the change the request made (the events' own record of who). */
async function eventActorOf(ws: Workspace, type: string, objectId: string): Promise<{ kind: string; id: string }> {
  const rows = await ctx.db(TABLES.events).where({ org_id: ws.org.id, type, object_id: objectId }).orderBy('seq', 'desc').select('actor_kind', 'actor_id');
  return { kind: rows[0].actor_kind, id: rows[0].actor_id };
}

describe('leads.getHistory: a lead changed by two keys and a member', () => {
  it('answers each change newest first with its actor, procedure, request id and the fields it changed (from, to)', async () => {
    const ws = await createWorkspace(ctx.db);
    const other = await createKey(ctx.db, ws.org.id);
    const token = await memberToken(ws, ['leads.read', 'leads.update', 'contacts.read']);
    const name = unique('Ana');

    const created = await call('leads.create', { name, phone: '+442079460018', source: 'web' }, ws.key);
    const lead = created.result;
    const byOther = await call('leads.update', { id: lead.id, status: 'CONTACTED', notes: 'called once', nextCallAt: new Date('2030-01-02T03:04:05.678Z') }, other.key);
    const byMember = await call('leads.update', { id: lead.id, name: `${name} Souza`, phones: ['+442079460018', '+442079460019'], source: null }, token);
    const assigned = await call('leads.assign', { id: lead.id, assignedToId: ws.member.id }, ws.key);
    const memberActor = await eventActorOf(ws, 'contact.updated', lead.contactId);
    expect(memberActor.kind).toBe('playgroundToken');

    const page = await historyOf('leads.getHistory', { id: lead.id }, ws.key);

    expect(page.pagination).toEqual({ pageSize: 50, hasNextPage: false, nextCursor: null });
    expect(page.data).toEqual([
      {
        id: expect.stringMatching(/^hist_/), changedAt: assigned.result.updatedAt, action: 'updated',
        actor: { kind: 'apiKey', id: ws.keyId }, procedure: 'leads.assign', requestId: assigned.requestId,
        changes: { assignedToId: { from: null, to: ws.member.id } },
      },
      {
        id: expect.stringMatching(/^hist_/), changedAt: byMember.result.updatedAt, action: 'updated',
        actor: memberActor, procedure: 'leads.update', requestId: byMember.requestId,
        changes: {
          name: { from: name, to: `${name} Souza` },
          phones: { from: ['+442079460018'], to: ['+442079460018', '+442079460019'] },
          source: { from: 'web', to: null },
        },
      },
      {
        id: expect.stringMatching(/^hist_/), changedAt: byOther.result.updatedAt, action: 'updated',
        actor: { kind: 'apiKey', id: other.id }, procedure: 'leads.update', requestId: byOther.requestId,
        changes: {
          status: { from: 'NOT_CONTACTED', to: 'CONTACTED' },
          notes: { from: null, to: 'called once' },
          nextCallAt: { from: null, to: '2030-01-02T03:04:05.678Z' },
        },
      },
      {
        id: expect.stringMatching(/^hist_/), changedAt: lead.createdAt, action: 'created',
        actor: { kind: 'apiKey', id: ws.keyId }, procedure: 'leads.create', requestId: created.requestId,
        changes: {
          name: { from: null, to: name },
          phones: { from: null, to: ['+442079460018'] },
          emails: { from: null, to: [] },
          status: { from: null, to: 'NOT_CONTACTED' },
          source: { from: null, to: 'web' },
        },
      },
    ]);
    // The request ids are the ones the responses gave, each its own.
    expect(new Set(page.data.map((e) => e.requestId)).size).toBe(4);

    // The member's change of the person fields is on the contact's history too, with the same request.
    const contact = await historyOf('contacts.getHistory', { id: lead.contactId }, token);
    expect(contact.data).toEqual([
      {
        id: expect.stringMatching(/^hist_/), changedAt: expect.any(Date), action: 'updated',
        actor: memberActor, procedure: 'leads.update', requestId: byMember.requestId,
        changes: { name: { from: name, to: `${name} Souza` }, phones: { from: ['+442079460018'], to: ['+442079460018', '+442079460019'] } },
      },
      {
        id: expect.stringMatching(/^hist_/), changedAt: lead.createdAt, action: 'created',
        actor: { kind: 'apiKey', id: ws.keyId }, procedure: 'leads.create', requestId: created.requestId,
        changes: { name: { from: null, to: name }, phones: { from: null, to: ['+442079460018'] }, emails: { from: null, to: [] } },
      },
    ]);
  });

  it('names the request id a caller sent (X-Request-Id), and the REST face names the procedure it runs', async () => {
    const ws = await createWorkspace(ctx.db);
    const { result: lead } = await call('leads.create', { name: unique('Rest'), phone: '+442079460020' }, ws.key);
    const sent = `req-${unique('patch')}`;
    const patched = await request(ctx.app).patch(`/api/v1/leads/${lead.id}`).set('Authorization', `Bearer ${ws.key}`)
      .set('X-Request-Id', sent).send({ company: 'Acme Ltd' });
    expect(patched.status).toBe(200);
    const rpc = await rpcPost(ctx.app, 'leads.update', { id: lead.id, company: null }, ws.key).set('X-Request-Id', `${sent}-rpc`);
    expect(rpc.status).toBe(200);

    const page = await historyOf('leads.getHistory', { id: lead.id }, ws.key);
    expect(page.data.map((e) => [e.procedure, e.requestId, e.changes])).toEqual([
      ['leads.update', `${sent}-rpc`, { company: { from: 'Acme Ltd', to: null } }],
      ['leads.update', sent, { company: { from: null, to: 'Acme Ltd' } }],
      ['leads.create', expect.any(String), expect.objectContaining({ name: expect.any(Object) })],
    ]);
  });

  it('records nothing for a change that changed no field', async () => {
    const ws = await createWorkspace(ctx.db);
    const { result: lead } = await call('leads.create', { name: unique('Same'), phone: '+442079460021', notes: 'n' }, ws.key);
    await call('leads.update', { id: lead.id, notes: 'n' }, ws.key);
    const page = await historyOf('leads.getHistory', { id: lead.id }, ws.key);
    expect(page.data.map((e) => e.action)).toEqual(['created']);
  });
});

describe('the other writes of a lead, a contact and a client', () => {
  it('leads.upsert: its create, and its change (the one-statement path and the transaction), each an entry', async () => {
    const ws = await createWorkspace(ctx.db);
    const externalId = unique('crm');
    const first = await call('leads.upsert', { externalId, name: 'Up One', phone: '+442079460030' }, ws.key);
    const second = await call('leads.upsert', { externalId, name: 'Up Two', phone: '+442079460030', notes: 'synced' }, ws.key);
    // Naming the version takes leads.update's transaction.
    const third = await call('leads.upsert', { externalId, name: 'Up Two', phone: '+442079460031', expectedUpdatedAt: second.result.updatedAt }, ws.key);

    const page = await historyOf('leads.getHistory', { id: first.result.id }, ws.key);
    expect(page.data.map((e) => [e.action, e.procedure, e.requestId, e.changes])).toEqual([
      ['updated', 'leads.upsert', third.requestId, { phones: { from: ['+442079460030'], to: ['+442079460031'] } }],
      ['updated', 'leads.upsert', second.requestId, { name: { from: 'Up One', to: 'Up Two' }, notes: { from: null, to: 'synced' } }],
      ['created', 'leads.upsert', first.requestId, expect.objectContaining({ externalId: { from: null, to: externalId }, name: { from: null, to: 'Up One' } })],
    ]);
    const contact = await historyOf('contacts.getHistory', { id: first.result.contactId }, ws.key);
    expect(contact.data.map((e) => [e.action, e.requestId, e.changes])).toEqual([
      ['updated', third.requestId, { phones: { from: ['+442079460030'], to: ['+442079460031'] } }],
      ['updated', second.requestId, { name: { from: 'Up One', to: 'Up Two' } }],
      ['created', first.requestId, expect.any(Object)],
    ]);
  });

  it('leads.convert: the lead entry and the new client\'s creation; a delete keeps the history', async () => {
    const ws = await createWorkspace(ctx.db);
    const { result: lead } = await call('leads.create', { name: unique('Conv'), phone: '+442079460040', company: 'Acme' }, ws.key);
    const converted = await call('leads.convert', { id: lead.id }, ws.key);
    const client = converted.result.client;

    const leadPage = await historyOf('leads.getHistory', { id: lead.id }, ws.key);
    expect(leadPage.data[0]).toMatchObject({
      procedure: 'leads.convert', requestId: converted.requestId,
      changes: { status: { from: 'NOT_CONTACTED', to: 'CONVERTED' }, clientId: { from: null, to: client.id } },
    });
    const clientPage = await historyOf('clients.getHistory', { id: client.id }, ws.key);
    expect(clientPage.data).toEqual([expect.objectContaining({
      action: 'created', procedure: 'leads.convert', requestId: converted.requestId,
      changes: expect.objectContaining({ name: { from: null, to: lead.name }, contactId: { from: null, to: lead.contactId } }),
    })]);

    const deleted = await call('leads.delete', { id: lead.id }, ws.key);
    const rows = await ctx.db(TABLES.recordHistory).where({ org_id: ws.org.id, resource: 'lead', record_id: lead.id }).orderBy('changed_at', 'desc');
    // The creation's entry is its lead.created event while that is kept (see 'retention').
    expect(rows.map((r) => [r.action, r.request_id])).toEqual([['deleted', deleted.requestId], ['updated', converted.requestId]]);
    // Its history is read of a lead that is there, as getById reads it.
    expect((await rpcGet(ctx.app, 'leads.getHistory', { id: lead.id }, ws.key)).status).toBe(404);
    const restored = await call('leads.restore', { id: lead.id }, ws.key);
    expect((await historyOf('leads.getHistory', { id: lead.id }, ws.key)).data.map((e: { action: string; requestId: string }) => [e.action, e.requestId])).toEqual([
      ['restored', restored.requestId], ['deleted', deleted.requestId], ['updated', converted.requestId], ['created', expect.any(String)],
    ]);
  });

  it('leads.logCall: the fields the call moved', async () => {
    const ws = await createWorkspace(ctx.db);
    const { result: lead } = await call('leads.create', { name: unique('Call'), phone: '+442079460045', nextCallAt: new Date('2030-05-06T07:08:09.000Z') }, ws.key);
    const logged = await call('leads.logCall', { id: lead.id, outcome: 'CONTACTED', notes: 'spoke briefly' }, ws.key);
    const page = await historyOf('leads.getHistory', { id: lead.id }, ws.key);
    expect(page.data[0]).toMatchObject({
      action: 'updated', procedure: 'leads.logCall', requestId: logged.requestId, changedAt: logged.result.lead.updatedAt,
      changes: { status: { from: 'NOT_CONTACTED', to: 'CONTACTED' }, nextCallAt: { from: '2030-05-06T07:08:09.000Z', to: null } },
    });
    expect(Object.keys(page.data[0].changes).sort()).toEqual(['nextCallAt', 'status']);
  });

  it('contacts and clients: create, update (from and to), each with its procedure', async () => {
    const ws = await createWorkspace(ctx.db);
    const contact = await call('contacts.create', { name: 'Cora', phones: ['+442079460050'] }, ws.key);
    const contactUpdate = await call('contacts.update', { id: contact.result.id, emails: ['cora@example.com'], company: 'Acme' }, ws.key);
    const client = await call('clients.create', { name: 'Acme', contactId: contact.result.id }, ws.key);
    const clientUpdate = await call('clients.update', { id: client.result.id, notes: 'annual', email: 'billing@example.com' }, ws.key);

    const contactPage = await historyOf('contacts.getHistory', { id: contact.result.id }, ws.key);
    expect(contactPage.data.map((e) => [e.action, e.procedure, e.requestId, e.changes])).toEqual([
      ['updated', 'contacts.update', contactUpdate.requestId, { emails: { from: [], to: ['cora@example.com'] }, company: { from: null, to: 'Acme' } }],
      ['created', 'contacts.create', contact.requestId, { name: { from: null, to: 'Cora' }, phones: { from: null, to: ['+442079460050'] }, emails: { from: null, to: [] } }],
    ]);
    const clientPage = await historyOf('clients.getHistory', { id: client.result.id }, ws.key);
    expect(clientPage.data.map((e) => [e.action, e.procedure, e.requestId, e.changes])).toEqual([
      ['updated', 'clients.update', clientUpdate.requestId, { notes: { from: null, to: 'annual' }, email: { from: null, to: 'billing@example.com' } }],
      ['created', 'clients.create', client.requestId, { name: { from: null, to: 'Acme' }, contactId: { from: null, to: contact.result.id } }],
    ]);
  });
});

describe('imports', () => {
  it("an import's rows are created with an entry each (the batch's statement), naming the import", async () => {
    const ws = await createWorkspace(ctx.db);
    const runner = startTestRunner(ctx.db, [ws.org.id]);
    const upload = await uploadImport(ctx.app, ws.key, validCsv(3), { type: CSV });
    try {
      expect(upload.status).toBe(202);
      const done = await waitForImport(ctx.app, ws.key, upload.body.id);
      expect(done.status).toBe('succeeded');
    } finally {
      await runner.stop();
    }
    const leads = await ctx.db(TABLES.leads).where({ org_id: ws.org.id }).select('id', 'contact_id');
    expect(leads).toHaveLength(3);
    for (const lead of leads) {
      const page = await historyOf('leads.getHistory', { id: lead.id }, ws.key);
      expect(page.data).toEqual([expect.objectContaining({
        action: 'created', actor: { kind: 'apiKey', id: ws.keyId }, procedure: 'import', requestId: upload.body.id,
        changes: expect.objectContaining({ source: { from: null, to: 'import' }, status: { from: null, to: 'NOT_CONTACTED' } }),
      })]);
      const contact = await historyOf('contacts.getHistory', { id: lead.contact_id }, ws.key);
      expect(contact.data.map((e) => [e.action, e.procedure])).toEqual([['created', 'import']]);
    }
  });
});

describe('paging, scopes and errors', () => {
  it('walks the history newest first by cursor, stable while new changes are written', async () => {
    const ws = await createWorkspace(ctx.db);
    const { result: lead } = await call('leads.create', { name: unique('Page'), phone: '+442079460060' }, ws.key);
    for (let i = 1; i <= 6; i++) await call('leads.update', { id: lead.id, notes: `note ${i}` }, ws.key);
    const whole = await historyOf('leads.getHistory', { id: lead.id, pageSize: 100 }, ws.key);
    expect(whole.data).toHaveLength(7);
    const times = whole.data.map((e) => e.changedAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const walked: string[] = [];
    let page = await historyOf('leads.getHistory', { id: lead.id, pageSize: 3 }, ws.key);
    walked.push(...page.data.map((e) => e.id));
    // A change written mid-walk is newer than every page still to come: it shifts none of them.
    await call('leads.update', { id: lead.id, notes: 'during the walk' }, ws.key);
    while (page.pagination.hasNextPage) {
      expect(page.pagination.nextCursor).toBe(page.data.at(-1).id);
      page = await historyOf('leads.getHistory', { id: lead.id, pageSize: 3, cursor: page.pagination.nextCursor }, ws.key);
      walked.push(...page.data.map((e) => e.id));
    }
    expect(walked).toEqual(whole.data.map((e) => e.id));
    expect(page.pagination.nextCursor).toBeNull();
  });

  it('needs <resource>.read; an unknown id or another workspace\'s is a 404; a cursor of another record is a 400', async () => {
    const ws = await createWorkspace(ctx.db);
    const otherWs = await createWorkspace(ctx.db);
    const { result: lead } = await call('leads.create', { name: unique('Scope'), phone: '+442079460070' }, ws.key);
    const { result: second } = await call('leads.create', { name: unique('Scope'), phone: '+442079460071' }, ws.key);
    const contactsOnly = await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read'] });

    const refused = await rpcGet(ctx.app, 'leads.getHistory', { id: lead.id }, contactsOnly.key);
    expect(refused.status).toBe(403);
    expect(errorOf(refused).message).toBe('missing scope: leads.read');
    expect((await rpcGet(ctx.app, 'contacts.getHistory', { id: lead.contactId }, contactsOnly.key)).status).toBe(200);
    expect((await rpcGet(ctx.app, 'clients.getHistory', { id: 'cli_nope' }, contactsOnly.key)).status).toBe(403);

    const unknown = await rpcGet(ctx.app, 'leads.getHistory', { id: 'lead_unknown' }, ws.key);
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).message).toBe((await rpcGet(ctx.app, 'leads.getById', { id: 'lead_unknown' }, ws.key)).body.error.json.message);
    expect((await rpcGet(ctx.app, 'leads.getHistory', { id: lead.id }, otherWs.key)).status).toBe(404);

    const secondEntry = (await historyOf('leads.getHistory', { id: second.id }, ws.key)).data[0].id;
    const badCursor = await rpcGet(ctx.app, 'leads.getHistory', { id: lead.id, cursor: secondEntry }, ws.key);
    expect(badCursor.status).toBe(400);
    expect(errorOf(badCursor).data.issues).toEqual([{ path: ['cursor'], message: expect.stringMatching(/^is no entry of this lead's history/) }]);
    expect((await rpcGet(ctx.app, 'leads.getHistory', { id: lead.id, cursor: 'not an id' }, ws.key)).status).toBe(400);
  });
});

describe('retention', () => {
  it('keeps the history when the events are purged', async () => {
    const ws = await createWorkspace(ctx.db);
    const { result: lead } = await call('leads.create', { name: unique('Kept'), phone: '+442079460080' }, ws.key);
    await call('leads.update', { id: lead.id, status: 'CONTACTED' }, ws.key);
    const before = await historyOf('leads.getHistory', { id: lead.id }, ws.key);

    await ctx.db(TABLES.events).where({ org_id: ws.org.id }).update({ created_at: new Date('2020-01-01T00:00:00.000Z') });
    await purgeExpiredEvents(ctx.db, 30);
    expect(await ctx.db(TABLES.events).where({ org_id: ws.org.id }).count<{ n: string }[]>({ n: '*' })).toEqual([{ n: '0' }]);

    const after = await historyOf('leads.getHistory', { id: lead.id }, ws.key);
    expect(after).toEqual(before);
    expect(after.data.map((e: { action: string }) => e.action)).toEqual(['updated', 'created']);
  });

  it('moves a creation into the kept history only for a record still there, live or in the trash, and once', async () => {
    const ws = await createWorkspace(ctx.db);
    const { result: live } = await call('leads.create', { name: unique('Live'), phone: '+442079460081' }, ws.key);
    const { result: trashed } = await call('leads.create', { name: unique('Trashed'), phone: '+442079460082' }, ws.key);
    const { result: purged } = await call('leads.create', { name: unique('Purged'), phone: '+442079460083' }, ws.key);
    await call('leads.delete', { id: trashed.id }, ws.key);
    await call('leads.delete', { id: purged.id }, ws.key);
    await ctx.db(TABLES.trash).where({ org_id: ws.org.id, id: purged.id }).update({ deleted_at: new Date('2020-01-01T00:00:00.000Z') });
    await purgeExpiredTrash(ctx.db, 30);
    const creations = await ctx.db(TABLES.recordHistory).where({ org_id: ws.org.id, action: 'created' }).count<{ n: string }[]>({ n: '*' });
    expect(creations).toEqual([{ n: '0' }]);
    const liveBefore = await historyOf('leads.getHistory', { id: live.id }, ws.key);

    await ctx.db(TABLES.events).where({ org_id: ws.org.id }).update({ created_at: new Date('2020-01-01T00:00:00.000Z') });
    await purgeExpiredEvents(ctx.db, 30);
    await purgeExpiredEvents(ctx.db, 30);

    const kept = await ctx.db(TABLES.recordHistory).where({ org_id: ws.org.id, action: 'created' }).select('resource', 'record_id');
    expect(kept.map((r) => `${r.resource} ${r.record_id}`).sort()).toEqual(
      [`contact ${live.contactId}`, `contact ${trashed.contactId}`, `contact ${purged.contactId}`, `lead ${live.id}`, `lead ${trashed.id}`].sort(),
    );
    expect(await historyOf('leads.getHistory', { id: live.id }, ws.key)).toEqual(liveBefore);
    await call('leads.restore', { id: trashed.id }, ws.key);
    expect((await historyOf('leads.getHistory', { id: trashed.id }, ws.key)).data.map((e: { action: string }) => e.action)).toEqual(['restored', 'deleted', 'created']);
  });
});
