import request from 'supertest';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import superjson from 'superjson';
import { constructWebhookEvent, reviveEvent } from '@workspace-api/client';
import { createTestContext } from '../helpers/test-app';
import { createKey, createWorkspace, unique } from '../helpers/factories';
import { resultOf, rpcGet, rpcPost } from '../helpers/rpc';
import { listen, openStream, subscriptionPath } from '../helpers/sse';
import { startReceiver, startTestWorker, type Receiver } from '../helpers/webhook-fixtures';
import { until } from '../helpers/poll';
import { EVENT_TYPES } from '../../src/events/event-types';
import { eventSchemaName, typedEventOutput } from '../../src/procedures/events/typed-events.schema';
import type { DeliveryWorker } from '../../src/webhooks/delivery-worker';
import { CSV, startTestRunner, uploadImport, validCsv, waitForImport } from '../helpers/imports';
import * as importsQueries from '../../src/db/imports';
import { endImport } from '../../src/imports/run-import';

/**
 * The document's typed events against what the service really sends: every event type, made
 * through the API (webhook.disabled by the delivery worker itself), as events.getAll answers it,
 * as events.onEvent streams it and as a webhook endpoint receives it, each checked against the
 * schema the document gives its type; and, revived by the client package, against the zod schema
 * the document is written from.
 */
const ctx = createTestContext();
let doc: any;
let server: Awaited<ReturnType<typeof listen>>;
let worker: DeliveryWorker | undefined;
const receivers: Receiver[] = [];

beforeAll(async () => {
  doc = (await request(ctx.app).get('/api/v1/openapi.json')).body;
  server = await listen(ctx.app);
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all(receivers.map((r) => r.close()));
  await server?.close();
  await ctx.close();
});

/** Ajv over the served document: `check(pointer, value)` answers the errors (none: []). */
function validator() {
  const ajv = new Ajv2020({ strict: false, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('phone', true);
  ajv.addSchema({ $id: 'doc', ...doc }, 'doc');
  return (pointer: string, value: unknown) => {
    const validate = ajv.getSchema(`doc#/${pointer}`)!;
    return validate(value) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`);
  };
}
const pointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

async function call(key: string, name: string, input: unknown): Promise<any> {
  const res = await rpcPost(ctx.app, name, input, key);
  if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return resultOf(res);
}

/** Every write that records an event of some type; `webhook.disabled` follows from the failing endpoint. */
async function recordEveryType(key: string, memberId: string): Promise<void> {
  const phone = () => `+4420794${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`;
  const contact = await call(key, 'contacts.create', { name: unique('Contact'), phones: [phone()] });
  await call(key, 'contacts.update', { id: contact.id, company: 'Acme Ltd' });
  await call(key, 'contacts.delete', { id: contact.id });
  await call(key, 'contacts.restore', { id: contact.id });
  const client = await call(key, 'clients.create', { name: unique('Client') });
  await call(key, 'clients.update', { id: client.id, company: 'Acme Ltd' });
  const lead = await call(key, 'leads.create', { name: unique('Lead'), phone: phone(), nextCallAt: new Date('2031-01-02T03:04:05.000Z') });
  await call(key, 'leads.update', { id: lead.id, status: 'QUALIFIED', assignedToId: memberId });
  await call(key, 'leads.logCall', { id: lead.id, outcome: 'CONTACTED', nextCallAt: new Date('2031-02-03T04:05:06.000Z') });
  await call(key, 'leads.convert', { id: lead.id });
  const doomed = await call(key, 'leads.create', { name: unique('Doomed'), phone: phone() });
  await call(key, 'leads.delete', { id: doomed.id });
  await call(key, 'leads.restore', { id: doomed.id });
  const task = await call(key, 'tasks.create', { title: unique('Task'), dueAt: new Date('2031-03-04T05:06:07.000Z') });
  await call(key, 'tasks.update', { id: task.id, title: unique('Task, renamed') });
  await call(key, 'tasks.complete', { id: task.id });
  await call(key, 'tasks.delete', { id: task.id });
  await call(key, 'tasks.restore', { id: task.id });
  const items = [{ description: 'Work', quantity: 1, unitPrice: 1000 }];
  const paid = await call(key, 'invoices.create', { clientId: client.id, currency: 'GBP', dueDate: '2031-01-31', items });
  await call(key, 'invoices.update', { id: paid.id, dueDate: '2031-02-28' });
  await call(key, 'invoices.send', { id: paid.id });
  await call(key, 'invoices.markPaid', { id: paid.id });
  const voided = await call(key, 'invoices.create', { clientId: client.id, currency: 'GBP', dueDate: '2031-01-31', items });
  await call(key, 'invoices.void', { id: voided.id });
  const deleted = await call(key, 'invoices.create', { clientId: client.id, currency: 'GBP', dueDate: '2031-01-31', items });
  await call(key, 'invoices.delete', { id: deleted.id });
  await call(key, 'invoices.restore', { id: deleted.id });
  // An erased person: their earlier events are kept without the personal fields, then contact.erased.
  const forgotten = await call(key, 'leads.create', { name: unique('Forgotten'), phone: phone(), notes: 'private' });
  await call(key, 'leads.logCall', { id: forgotten.id, outcome: 'CONTACTED', notes: 'private too' });
  await call(key, 'contacts.erase', { id: forgotten.contactId });
  const other = await call(key, 'clients.create', { name: unique('Client to delete') });
  await call(key, 'clients.delete', { id: other.id });
  await call(key, 'clients.restore', { id: other.id });
}

/** import.completed from an import that ran, import.failed from one ended as the runner ends a job that keeps failing. */
async function recordImportEvents(ws: { org: { id: string }; key: string }): Promise<void> {
  const completed = await uploadImport(ctx.app, ws.key, validCsv(1), { type: CSV });
  const runner = startTestRunner(ctx.db, [ws.org.id]);
  await waitForImport(ctx.app, ws.key, completed.body.id);
  await runner.stop();
  await uploadImport(ctx.app, ws.key, validCsv(1, { from: 1 }), { type: CSV });
  const claim = (await importsQueries.claimIn(ctx.db, ws.org.id, { maxRunning: 2, leaseMs: 10_000 }))!;
  await endImport({ db: ctx.db }, claim, { status: 'failed', failure: 'The import failed repeatedly on the server side; the rows committed before stay' });
}

/** Every event of the workspace as events.getAll's `json` carries it (the wire, before superjson revives anything), oldest first. */
async function allEventsAsSent(key: string): Promise<any[]> {
  const out: any[] = [];
  let after: string | null = null;
  for (;;) {
    const res = await rpcGet(ctx.app, 'events.getAll', { after, pageSize: 100 }, key);
    expect(res.status).toBe(200);
    const { data, pagination } = res.body.result.data.json;
    out.push(...data);
    if (!pagination.hasNextPage) return out;
    after = pagination.nextAfter;
  }
}

describe('typed events in the OpenAPI document', () => {
  it('describe every event type exactly as events.getAll, events.onEvent and the webhooks send it', async () => {
    const ws = await createWorkspace(ctx.db);
    const good = await startReceiver();
    const failing = await startReceiver(() => ({ status: 500 }));
    receivers.push(good, failing);
    const hook = await call(ws.key, 'webhooks.create', { url: good.url, events: ['*'] });
    await call(ws.key, 'webhooks.create', { url: failing.url, events: ['contact.created'] });
    // An endpoint failing "for longer than 0 ms" is disabled at its first failure: a real webhook.disabled.
    worker = startTestWorker(ctx.db, [ws.org.id], { disableAfterMs: 0, maxAttempts: 1 });
    await recordEveryType(ws.key, ws.member.id);
    await recordImportEvents(ws);
    expect(await until(async () => (await allEventsAsSent(ws.key)).some((e) => e.type === 'webhook.disabled'), 15_000)).toBe(true);
    // Catch-up answers an event once every older transaction has ended (the worker's included): wait for all of them.
    const recorded = Number((await ctx.db('events').where({ org_id: ws.org.id }).count({ n: '*' }))[0]!.n);
    expect(await until(async () => (await allEventsAsSent(ws.key)).length === recorded, 5_000)).toBe(true);

    const check = validator();
    const events = await allEventsAsSent(ws.key);
    expect([...new Set(events.map((e) => e.type))].sort()).toEqual([...EVENT_TYPES].sort());
    // The check does refuse: an object with a field its resource does not have, or another type's payload.
    const [first, last] = [events[0], events.at(-1)];
    expect(check(`components/schemas/${eventSchemaName(first.type)}`, { ...first, data: { ...first.data, object: { ...first.data.object, secret: 'x' } } })).not.toEqual([]);
    expect(check('components/schemas/Event', { ...first, data: last.data })).not.toEqual([]);
    for (const event of events) {
      const schema = `components/schemas/${eventSchemaName(event.type)}`;
      expect([event.type, check(schema, event), check('components/schemas/Event', event)]).toEqual([event.type, [], []]);
      // Revived (as the client package does), it is what the zod schema says, Dates as Dates.
      expect([event.type, typedEventOutput.safeParse(reviveEvent(structuredClone(event))).error?.issues]).toEqual([event.type, undefined]);
    }

    // The stream: after the first event, every other one, each frame as the document describes it.
    const stream = await openStream(server.url, subscriptionPath('events.onEvent'), { Authorization: `Bearer ${ws.key}`, 'Last-Event-ID': events[0].id });
    const path = `paths/${pointer('/api/v1/rpc/events.onEvent')}/get/responses/200/content/${pointer('text/event-stream')}/schema`;
    const connected = await stream.nextMessage();
    expect([connected.event, check(`${path}/oneOf/0/properties/data/contentSchema`, JSON.parse(connected.data))]).toEqual(['connected', []]);
    for (const event of events.slice(1)) {
      const frame = await stream.nextMessage();
      expect(check(path, frame)).toEqual([]);
      expect([frame.id, check(`${path}/oneOf/1/properties/data/contentSchema`, JSON.parse(frame.data))]).toEqual([event.id, []]);
      expect(superjson.deserialize(JSON.parse(frame.data))).toEqual({ ...event, createdAt: new Date(event.createdAt) });
    }
    stream.close();

    // The webhooks: each body is its type's webhook body, and constructWebhookEvent makes it the typed event.
    expect(await until(() => new Set(good.requests.map((r) => r.eventId)).size === events.length, 15_000)).toBe(true);
    for (const received of good.requests) {
      const body = JSON.parse(received.body);
      const schema = `webhooks/${pointer(received.eventType)}/post/requestBody/content/${pointer('application/json')}/schema`;
      expect([received.eventType, check(schema, body)]).toEqual([received.eventType, []]);
      const constructed = await constructWebhookEvent(received.body, received.headers['workspace-signature'] as string, hook.secret);
      expect([received.eventType, typedEventOutput.safeParse(constructed).error?.issues]).toEqual([received.eventType, undefined]);
      const stored = events.find((e) => e.id === body.id);
      // A receiver's copy sent before an erasure keeps what it was sent (docs/personal-data.md); the service's is reduced.
      if (stored.data.erased && !body.data.erased) expect(constructed.data.object.id).toBe(stored.data.object.id);
      else expect(constructed).toEqual(reviveEvent(structuredClone(stored)));
    }
  }, 60_000);

  it("describe lead.converted's client as a reference for a reader without clients.read", async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await call(ws.key, 'leads.create', { name: unique('Converted'), phone: '+442079460401' });
    await call(ws.key, 'leads.convert', { id: lead.id });
    const { key } = await createKey(ctx.db, ws.org.id, { scopes: ['events.read', 'leads.read'] });

    const check = validator();
    // Catch-up answers an event once every older transaction (of any workspace) has ended.
    expect(await until(async () => (await allEventsAsSent(key)).some((e) => e.type === 'lead.converted'), 5_000)).toBe(true);
    const [converted] = (await allEventsAsSent(key)).filter((e) => e.type === 'lead.converted');
    expect(Object.keys(converted.data.client)).toEqual(['id']);
    expect(check('components/schemas/LeadConvertedEvent', converted)).toEqual([]);
    expect(typedEventOutput.safeParse(reviveEvent(converted)).error?.issues).toBeUndefined();
  });
});
