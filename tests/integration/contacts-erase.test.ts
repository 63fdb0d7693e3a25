import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { createTestContext, testDatabaseUrl } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { rpcGet, rpcPost, resultOf } from '../helpers/rpc';
import { expectRpcFailure } from '../helpers/leads-procedures-helpers';
import { deliveriesOf, insertEndpoint, startReceiver, startTestWorker } from '../helpers/webhook-fixtures';
import { until } from '../helpers/poll';
import * as leadsQueries from '../../src/db/leads';
import { CSV, startTestRunner, uploadImport, waitForImport } from '../helpers/imports';

const ctx = createTestContext();
afterAll(() => ctx.close());

const digits = (n: number) => Array.from(randomBytes(n), (b) => String(b % 10)).join('');

/** A person no other test writes: a unique name, a UK mobile and a French mobile, two emails, notes. */
function newPerson() {
  const uk = `7400${digits(6)}`;
  const fr = `6${digits(8)}`;
  const tag = randomBytes(5).toString('hex');
  return {
    name: `Zelda Erasable ${tag}`,
    ukNational: `0${uk.slice(0, 4)} ${uk.slice(4)}`,
    frInternational: `+33 ${fr.slice(0, 1)} ${fr.slice(1, 3)} ${fr.slice(3, 5)} ${fr.slice(5, 7)} ${fr.slice(7)}`,
    email: `Zelda.${tag}@Example.COM`,
    email2: `zelda2.${tag}@example.org`,
    leadNotes: `lead notes ${tag} about Zelda`,
    callNotes: `call notes ${tag}: Zelda asked for a callback`,
    newNotes: `updated notes ${tag}`,
    /** Every stored form: as sent, E.164, digits only, lowercased. */
    needles(): string[] {
      return [
        this.name, `+44${uk}`, `44${uk}`, uk, `+33${fr}`, `33${fr}`, fr, this.ukNational, this.frInternational,
        this.email, this.email2, this.leadNotes, this.callNotes, this.newNotes, tag,
      ].map((s) => s.toLowerCase());
    },
  };
}

function containing(text: string, needles: string[]): string[] {
  const lower = text.toLowerCase();
  return needles.filter((n) => lower.includes(n));
}

/**
 * Which of the (lowercase) `needles` some row holds, as text, on every node: on Citus the
 * coordinator (its guard against multi-shard statements lifted for this session) and each worker.
 * Every table, each in one pass for all the needles: in a table keyed by workspace, the rows of
 * the person's workspace (`orgId`), the only ones a write of that workspace reaches; any other
 * table whole. (The whole of every table read the suite's every workspace: over 400 MB of other
 * tests' rows by the time this file runs, past the test's time.)
 */
async function foundInDatabase(orgId: string, needles: string[]): Promise<string[]> {
  const url = testDatabaseUrl();
  const urls = [url];
  if (process.env.WSAPI_TEST_CITUS) {
    const { rows } = await ctx.db.raw(`select nodename, nodeport from pg_dist_node where noderole = 'primary' and groupid > 0`);
    for (const node of rows) urls.push(Object.assign(new URL(url), { hostname: node.nodename, port: String(node.nodeport) }).toString());
  }
  const found = new Set<string>();
  for (const nodeUrl of urls) {
    const client = new pg.Client({ connectionString: nodeUrl });
    await client.connect();
    try {
      if (process.env.WSAPI_TEST_CITUS) await client.query(`set citus.multi_task_query_log_level = 'off'`);
      const { rows: tables } = await client.query(`select format('%I.%I', t.schemaname, t.tablename) as name,
          exists (select 1 from information_schema.columns c where c.table_schema = t.schemaname and c.table_name = t.tablename and c.column_name = 'org_id') as by_workspace
        from pg_tables t where t.schemaname not in ('pg_catalog', 'information_schema', 'citus', 'columnar', 'columnar_internal')`);
      for (const table of tables) {
        const wanted = needles.filter((n) => !found.has(n));
        if (!wanted.length) break;
        const hits = wanted.map((_, i) => `bool_or(strpos(row_text, $${i + 2}) > 0) as "${i}"`).join(', ');
        const rows = table.by_workspace ? `${table.name} t where t.org_id = $1` : `${table.name} t where $1::text is not null`;
        const { rows: [row] } = await client.query(`select ${hits} from (select lower(t::text) as row_text from ${rows}) s`, [orgId, ...wanted]);
        wanted.forEach((needle, i) => { if (row[String(i)]) found.add(needle); });
      }
    } finally {
      await client.end();
    }
  }
  return needles.filter((n) => found.has(n));
}

async function call(key: string, name: string, input: unknown, idempotencyKey?: string) {
  const req = rpcPost(ctx.app, name, input, key);
  const res = await (idempotencyKey ? req.set('Idempotency-Key', idempotencyKey) : req);
  expect(res.status).toBe(200);
  return resultOf(res);
}

describe('POST contacts.erase', () => {
  it('leaves none of the person in any table or read, keeps others, unlinks clients and tasks, and records ids only', async () => {
    const ws = await createWorkspace(ctx.db);
    const receiver = await startReceiver((req) => ({ status: 200, body: req.body }));
    const endpoint = await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url });
    const worker = startTestWorker(ctx.db, [ws.org.id]);
    try {
      const p = newPerson();
      const other = newPerson();
      const otherLead = await call(ws.key, 'leads.create', { name: other.name, phone: other.ukNational, email: other.email, notes: other.leadNotes });
      const lead1 = await call(ws.key, 'leads.create', {
        name: p.name, phone: p.ukNational, phones: [p.frInternational], email: p.email, notes: p.leadNotes,
      }, randomUUID());
      const contactId: string = lead1.contactId;
      // Two more leads of the same contact (the API makes a contact per lead); one is then deleted.
      const [lead2Id, lead3Id] = await ctx.db.transaction((trx) => leadsQueries.insertLeads(trx, ws.org.id, [0, 1].map(() => ({
        contactId, status: 'NOT_CONTACTED' as const, source: null, notes: null, nextCallAt: null, assignedToId: null, clientId: null,
      }))));
      await call(ws.key, 'leads.update', { id: lead2Id, notes: p.newNotes, emails: [p.email, p.email2] }, randomUUID());
      // Deleted and restored: the trash held it meanwhile, and the history has both.
      await call(ws.key, 'leads.delete', { id: lead2Id }, randomUUID());
      await call(ws.key, 'leads.restore', { id: lead2Id }, randomUUID());
      await call(ws.key, 'leads.logCall', { id: lead1.id, outcome: 'CONTACTED', notes: p.callNotes }, randomUUID());
      await call(ws.key, 'leads.delete', { id: lead3Id }, randomUUID());
      const client = await call(ws.key, 'clients.create', { name: 'Globex Ltd', contactId });
      const task = await call(ws.key, 'tasks.create', { title: 'Send the brochure', leadId: lead1.id });
      const contactsOtherClient = await call(ws.key, 'clients.create', { name: 'Initech', contactId: otherLead.contactId });

      expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id)).every((d) => d.status !== 'pending'), 10_000)).toBe(true);
      const echoed = (await deliveriesOf(ctx.db, ws.org.id)).flatMap((d) => d.attemptRows.map((a) => a.response_excerpt ?? '')).join('\n');
      expect(containing(echoed, p.needles())).toContain(p.name.toLowerCase());

      // The export answers the whole person first.
      const exported = resultOf(await rpcGet(ctx.app, 'contacts.exportPersonalData', { id: contactId }, ws.key));
      expect(exported.contact).toMatchObject({ id: contactId, name: p.name });
      expect(exported.leads.map((l: { id: string }) => l.id).sort()).toEqual([lead1.id, lead2Id].sort());
      expect(exported.calls).toEqual([expect.objectContaining({ leadId: lead1.id, notes: p.callNotes })]);
      expect(exported.tasks).toEqual([expect.objectContaining({ id: task.id })]);
      expect(exported.clients).toEqual([expect.objectContaining({ id: client.id, contactId })]);
      expect(exported.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['contact.created', 'lead.created', 'lead.call_logged', 'lead.deleted', 'lead.restored']));
      expect(exported.history.map((e: { resource: string; recordId: string; action: string }) => `${e.resource} ${e.recordId} ${e.action}`)).toEqual(expect.arrayContaining([
        `contact ${contactId} created`, `contact ${contactId} updated`, `lead ${lead1.id} created`,
        `lead ${lead2Id} updated`, `lead ${lead2Id} deleted`, `lead ${lead2Id} restored`, `lead ${lead3Id} deleted`,
      ]));

      // The dump finds the person in every form before (so finding nothing after means something).
      const before = await foundInDatabase(ws.org.id, p.needles());
      expect(before).toEqual(expect.arrayContaining(p.needles().filter((n) => n !== p.ukNational.toLowerCase() && n !== p.frInternational.toLowerCase())));

      const res = await rpcPost(ctx.app, 'contacts.erase', { id: contactId }, ws.key);
      expect(res.status).toBe(200);
      const erased = resultOf(res);
      expect(erased).toEqual({ id: contactId, erased: true, leadIds: expect.any(Array), erasureId: expect.stringMatching(/^era_/) });
      expect([...erased.leadIds].sort()).toEqual([lead1.id, lead2Id, lead3Id].sort());

      // No stored form of the person anywhere, on any node; the other person is all there.
      expect(await foundInDatabase(ws.org.id, p.needles())).toEqual([]);
      expect(await foundInDatabase(ws.org.id, [other.name.toLowerCase(), other.leadNotes.toLowerCase()])).toHaveLength(2);

      // Nothing of the person through the API either.
      const reads = await Promise.all([
        rpcGet(ctx.app, 'contacts.getById', { id: contactId }, ws.key),
        rpcGet(ctx.app, 'leads.getById', { id: lead1.id }, ws.key),
        rpcGet(ctx.app, 'contacts.exportPersonalData', { id: contactId }, ws.key),
        rpcGet(ctx.app, 'leads.getAll', {}, ws.key),
        rpcGet(ctx.app, 'leads.getAll', { search: p.name }, ws.key),
        rpcGet(ctx.app, 'contacts.getAll', {}, ws.key),
        rpcGet(ctx.app, 'events.getAll', { pageSize: 100 }, ws.key),
        rpcGet(ctx.app, 'events.getAll', { after: null, pageSize: 100 }, ws.key),
        rpcGet(ctx.app, 'webhooks.getDeliveries', { id: endpoint.id, pageSize: 100 }, ws.key),
        request(ctx.app).get('/api/v1/leads').set('Authorization', `Bearer ${ws.key}`),
        request(ctx.app).get('/api/v1/leads').query({ search: p.name }).set('Authorization', `Bearer ${ws.key}`),
        request(ctx.app).get('/api/v1/leads/export').query({ format: 'ndjson' }).set('Authorization', `Bearer ${ws.key}`),
      ]);
      expect(reads.slice(0, 3).map((r) => r.status)).toEqual([404, 404, 404]);
      for (const r of reads) expect(containing(r.text, p.needles())).toEqual([]);
      expect(reads[3]!.text).toContain(otherLead.id);

      // Clients and tasks keep their fields and lose the link; other people's links stay.
      expect(resultOf(await rpcGet(ctx.app, 'clients.getById', { id: client.id }, ws.key))).toMatchObject({ name: 'Globex Ltd', contactId: null });
      expect(resultOf(await rpcGet(ctx.app, 'clients.getById', { id: contactsOtherClient.id }, ws.key)).contactId).toBe(otherLead.contactId);
      expect(resultOf(await rpcGet(ctx.app, 'tasks.getById', { id: task.id }, ws.key))).toMatchObject({ title: 'Send the brochure', leadId: null });

      // contact.erased carries the ids only; the audit row holds no personal data.
      const erasedEvent = (await ctx.db('events').where({ org_id: ws.org.id, type: 'contact.erased' }).select('data', 'actor_id'))[0];
      expect(erasedEvent).toEqual({
        data: {
          object: {
            id: contactId, name: '', phones: [], emails: [], primaryPhone: null, primaryEmail: null, company: null, externalId: null,
            createdAt: expect.any(String), updatedAt: expect.any(String),
          },
          leadIds: erased.leadIds,
          erased: true,
        },
        actor_id: ws.keyId,
      });
      const audit = await ctx.db('erasures').where({ org_id: ws.org.id }).select('id', 'contact_id', 'lead_ids', 'actor_kind', 'actor_id');
      expect(audit).toEqual([{ id: erased.erasureId, contact_id: contactId, lead_ids: erased.leadIds, actor_kind: 'apiKey', actor_id: ws.keyId }]);
      // The person's earlier events stay, marked, without the personal fields.
      const kept = await ctx.db('events').where({ org_id: ws.org.id, object_id: lead1.id, type: 'lead.created' }).first('data');
      expect(kept.data).toMatchObject({ erased: true, object: { id: lead1.id, contactId, name: '', phones: [], emails: [], notes: null, status: 'NOT_CONTACTED' } });
      const logged = await ctx.db('events').where({ org_id: ws.org.id, object_id: lead1.id, type: 'lead.call_logged' }).first('data');
      expect(logged.data).toMatchObject({ erased: true, call: { outcome: 'CONTACTED', notes: null } });

      // Erasing again is a 404.
      expectRpcFailure(await rpcPost(ctx.app, 'contacts.erase', { id: contactId }, ws.key), 'NOT_FOUND', 'contacts.erase');
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  it('sends a delivery pending at the erasure without the personal fields, and removes failed import rows holding the person', async () => {
    const ws = await createWorkspace(ctx.db);
    const p = newPerson();
    const receiver = await startReceiver();
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url });
    const lead = await call(ws.key, 'leads.create', { name: p.name, phone: p.ukNational, email: p.email, notes: p.leadNotes });
    // Two rows that fail (a bad email): one names the person, one holds only their phone, written another way.
    const uk = p.ukNational.replace(/\s/g, '');
    const csv = `name,phone,email\n"${p.name}",${p.ukNational},not-an-email\nSomeone Else,"(${uk.slice(0, 5)}) ${uk.slice(5, 8)}-${uk.slice(8)}",nope\nKeep Me,+442079460018,bad\n`;
    const runner = startTestRunner(ctx.db, [ws.org.id]);
    try {
      const upload = await uploadImport(ctx.app, ws.key, csv, { type: CSV });
      expect(upload.status).toBe(202);
      expect((await waitForImport(ctx.app, ws.key, upload.body.id)).status).toBe('succeeded');
    } finally {
      await runner.stop();
    }
    const errorsBefore = await ctx.db('import_errors').where({ org_id: ws.org.id }).select('line');
    expect(new Set(errorsBefore.map((e) => e.line)).size).toBe(3);

    await call(ws.key, 'contacts.erase', { id: lead.contactId });
    const left = await ctx.db('import_errors').where({ org_id: ws.org.id }).select('row_text');
    expect(left.map((e) => e.row_text).every((row: string) => row.startsWith('Keep Me'))).toBe(true);
    expect(left.length).toBeGreaterThan(0);

    const worker = startTestWorker(ctx.db, [ws.org.id]);
    try {
      expect(await until(() => receiver.requests.some((r) => r.eventType === 'contact.erased'), 10_000)).toBe(true);
    } finally {
      await worker.stop();
      await receiver.close();
    }
    const sent = receiver.requests.map((r) => r.body).join('\n');
    expect(containing(sent, p.needles())).toEqual([]);
    const created = JSON.parse(receiver.requests.find((r) => r.eventType === 'lead.created')!.body);
    expect(created.data).toMatchObject({ erased: true, object: { id: lead.id, contactId: lead.contactId, name: '', phones: [] } });
  });

  it('keeps no response excerpt of a delivery that was in flight when the person was erased', async () => {
    const ws = await createWorkspace(ctx.db);
    const p = newPerson();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    // The receiver answers only after the erasure, echoing the body it got whole.
    const receiver = await startReceiver(async (req) => { await held; return { status: 200, body: req.body }; });
    await insertEndpoint(ctx.db, { orgId: ws.org.id, ownerKeyId: ws.keyId, url: receiver.url, events: ['lead.created'] });
    const lead = await call(ws.key, 'leads.create', { name: p.name, phone: p.ukNational, email: p.email });
    const worker = startTestWorker(ctx.db, [ws.org.id]);
    try {
      expect(await until(() => receiver.requests.length > 0, 10_000)).toBe(true);
      expect(containing(receiver.requests[0]!.body, p.needles())).not.toEqual([]);
      await call(ws.key, 'contacts.erase', { id: lead.contactId });
      release();
      expect(await until(async () => (await deliveriesOf(ctx.db, ws.org.id)).every((d) => d.status === 'succeeded' && d.attemptRows.length > 0), 10_000)).toBe(true);
    } finally {
      release();
      await worker.stop();
      await receiver.close();
    }
    const attempts = (await deliveriesOf(ctx.db, ws.org.id)).flatMap((d) => d.attemptRows);
    expect(attempts.map((a) => [a.status_code, a.response_excerpt])).toEqual([[200, null]]);
  });

  it('erases a person whose contact is in the trash: nothing of them stays there, and it cannot be restored', async () => {
    const ws = await createWorkspace(ctx.db);
    const p = newPerson();
    const contact = await call(ws.key, 'contacts.create', { name: p.name, phones: [p.ukNational], emails: [p.email] });
    await call(ws.key, 'contacts.update', { id: contact.id, emails: [p.email, p.email2] });
    await call(ws.key, 'contacts.delete', { id: contact.id });
    expect(await foundInDatabase(ws.org.id, [p.name.toLowerCase(), p.email2.toLowerCase()])).toHaveLength(2);
    const erased = resultOf(await rpcPost(ctx.app, 'contacts.erase', { id: contact.id }, ws.key));
    expect(erased).toMatchObject({ id: contact.id, erased: true, leadIds: [] });
    expect(await foundInDatabase(ws.org.id, p.needles())).toEqual([]);
    expectRpcFailure(await rpcPost(ctx.app, 'contacts.restore', { id: contact.id }, ws.key), 'NOT_FOUND', 'contacts.restore');
    expect(resultOf(await rpcGet(ctx.app, 'contacts.getDeleted', {}, ws.key)).data).toEqual([]);
  });

  it('answers 404 for an unknown id and one of another workspace, erasing nothing', async () => {
    const ws = await createWorkspace(ctx.db);
    const elsewhere = await createWorkspace(ctx.db);
    const lead = await call(elsewhere.key, 'leads.create', { name: unique('Someone'), phone: '+442079460018' });
    expectRpcFailure(await rpcPost(ctx.app, 'contacts.erase', { id: 'con_3kTMd9VbX2qLr7NwY5pHcZ' }, ws.key), 'NOT_FOUND', 'contacts.erase');
    expectRpcFailure(await rpcPost(ctx.app, 'contacts.erase', { id: lead.contactId }, ws.key), 'NOT_FOUND', 'contacts.erase');
    expect(resultOf(await rpcGet(ctx.app, 'contacts.getById', { id: lead.contactId }, elsewhere.key)).id).toBe(lead.contactId);
  });

  it('answers 403 naming contacts.erase to a key with every other contacts scope', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await call(ws.key, 'leads.create', { name: unique('Kept'), phone: '+442079460018' });
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read', 'contacts.create', 'contacts.update', 'contacts.delete'] });
    const res = await rpcPost(ctx.app, 'contacts.erase', { id: lead.contactId }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'contacts.erase').message).toBe('missing scope: contacts.erase');
    expect(resultOf(await rpcGet(ctx.app, 'contacts.getById', { id: lead.contactId }, ws.key)).id).toBe(lead.contactId);
  });
});

describe('GET contacts.exportPersonalData', () => {
  it('answers 404 for an unknown id, and 403 without contacts.read or a read scope of what it answers', async () => {
    const ws = await createWorkspace(ctx.db);
    expectRpcFailure(await rpcGet(ctx.app, 'contacts.exportPersonalData', { id: 'con_3kTMd9VbX2qLr7NwY5pHcZ' }, ws.key), 'NOT_FOUND', 'contacts.exportPersonalData');
    const lead = await call(ws.key, 'leads.create', { name: unique('Kept'), phone: '+442079460018' });
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['leads.read'] });
    const res = await rpcGet(ctx.app, 'contacts.exportPersonalData', { id: lead.contactId }, key);
    expect(expectRpcFailure(res, 'FORBIDDEN', 'contacts.exportPersonalData').message).toBe('missing scope: contacts.read');
    const contactsOnly = (await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read'] })).key;
    const partial = await rpcGet(ctx.app, 'contacts.exportPersonalData', { id: lead.contactId }, contactsOnly);
    expect(expectRpcFailure(partial, 'FORBIDDEN', 'contacts.exportPersonalData').message).toBe('missing scope: leads.read');
    const enough = (await createKey(ctx.db, ws.org.id, { scopes: ['contacts.read', 'leads.read', 'tasks.read', 'clients.read', 'events.read'] })).key;
    expect(resultOf(await rpcGet(ctx.app, 'contacts.exportPersonalData', { id: lead.contactId }, enough)).leads).toEqual([expect.objectContaining({ id: lead.id })]);
  });
});
