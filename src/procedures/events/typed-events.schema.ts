import { z } from 'zod';
import type { EventType } from '../../events/event-types';
import { LEAD_STATUSES } from '../../domain/lead-status';
import { INVOICE_STATUSES } from '../../domain/invoice-status';
import { leadCallOutput, leadOutput } from '../leads/lead.schema';
import { contactOutput } from '../contacts/contact.schema';
import { clientOutput, clientReferenceOutput } from '../clients/client.schema';
import { taskOutput } from '../tasks/task.schema';
import { invoiceOutput } from '../invoices/invoice.schema';
import { endpointOutput } from '../webhooks/endpoint.schema';
import { importOutput } from '../imports/import.schema';
import { idOutput, timestampOutput } from '../shared/output-fields';
import { actorOutput } from './event.schema';

/**
 * What each event type carries, one schema per type: `data.object` is the resource's own output
 * schema, and the types that add details (`from`, `to`, `call`, `client`) say which. These are what
 * a consumer holds, Dates as Dates; on the wire (events.getAll's `json`, the stream's values, a
 * webhook's body) the date-times inside `data` are ISO 8601 text, exactly as their JSON Schema in
 * the OpenAPI document says (`format: date-time`), because `data` is the object as it was stored
 * when the event was recorded. The server checks what it sends against the looser `eventOutput`
 * (event.schema.ts); tests/integration/openapi-events.test.ts checks real events against these.
 */
function typedEvent<const T extends EventType, D extends z.ZodRawShape>(type: T, data: D, description: string) {
  return z
    .strictObject({
      id: idOutput('evt'),
      type: z.literal(type),
      createdAt: timestampOutput('2026-12-10T15:00:00.000Z'),
      orgId: idOutput('org'),
      actor: actorOutput,
      data: z.strictObject(data).meta({ description: `The payload of ${type}.` }),
    })
    .meta({ description });
}

const leadStatus = z.enum(LEAD_STATUSES);
const invoiceStatus = z.enum(INVOICE_STATUSES);
// The events of an erased person (contacts.erase) are kept with the personal fields blanked
// (src/db/events/personal-data.ts): the objects keep their shape, and `erased` says so.
const erased = z.literal(true).optional()
  .meta({ description: "Present when the person was erased (contacts.erase): the object's personal fields are blank (name \"\", phones and emails [], primaries, notes and externalId null; a call's notes null)." });
const lead = { object: leadOutput, erased };
const contact = { object: contactOutput, erased };
const invoice = { object: invoiceOutput };

export const typedEventSchemas = [
  typedEvent('lead.created', lead, 'A lead was created (with its contact: a contact.created comes with it).'),
  typedEvent('lead.updated', lead, 'A lead changed (also sent beside lead.status_changed, lead.assigned and the others that change it).'),
  typedEvent('lead.status_changed', {
    ...lead,
    from: leadStatus.meta({ description: 'The status before.', examples: ['NOT_CONTACTED'] }),
    to: leadStatus.meta({ description: 'The status after.', examples: ['CONTACTED'] }),
  }, "A lead's status changed."),
  typedEvent('lead.assigned', {
    ...lead,
    from: idOutput('mem').nullable().meta({ description: 'The previous assignee, or null.', examples: [null] }),
    to: idOutput('mem').nullable().meta({ description: 'The new assignee, or null.' }),
  }, 'A lead was assigned to another member, or unassigned.'),
  typedEvent('lead.call_logged', { ...lead, call: leadCallOutput }, 'A call was logged on a lead.'),
  typedEvent('lead.converted', {
    ...lead,
    client: z.union([clientOutput, clientReferenceOutput]).meta({ description: "The lead's client: whole for a reader with clients.read, else its id only." }),
  }, 'A lead was converted: it is CONVERTED and linked to its client.'),
  typedEvent('lead.deleted', lead, 'A lead was deleted: `object` is the lead as it was.'),
  typedEvent('lead.restored', lead, 'A deleted lead was restored from the trash (leads.restore): `object` is the lead as it is again.'),
  typedEvent('contact.created', contact, 'A contact was created.'),
  typedEvent('contact.updated', contact, 'A contact changed.'),
  typedEvent('contact.deleted', contact, 'A contact was deleted: `object` is the contact as it was.'),
  typedEvent('contact.restored', contact, 'A deleted contact was restored from the trash (contacts.restore).'),
  typedEvent('contact.erased', {
    object: contactOutput,
    leadIds: z.array(idOutput('lead')).meta({ description: 'The leads erased with the contact, including any deleted before.' }),
    erased: z.literal(true),
  }, 'A person was erased (contacts.erase): `object` is the contact with every personal field blank, `leadIds` its leads. ' +
    'Their earlier events are kept with the personal fields blank and `erased: true`; erase your own copies.'),
  typedEvent('client.created', { object: clientOutput }, 'A client was created (by clients.create, or by converting a lead).'),
  typedEvent('client.updated', { object: clientOutput }, 'A client changed.'),
  typedEvent('client.deleted', { object: clientOutput }, 'A client was deleted: `object` is the client as it was.'),
  typedEvent('client.restored', { object: clientOutput }, 'A deleted client was restored from the trash (clients.restore).'),
  typedEvent('task.created', { object: taskOutput }, 'A task was created.'),
  typedEvent('task.updated', { object: taskOutput }, 'A task changed (also sent beside task.completed).'),
  typedEvent('task.completed', { object: taskOutput }, 'A task was completed.'),
  typedEvent('task.deleted', { object: taskOutput }, 'A task was deleted: `object` is the task as it was.'),
  typedEvent('task.restored', { object: taskOutput }, 'A deleted task was restored from the trash (tasks.restore).'),
  typedEvent('invoice.created', invoice, 'An invoice was created (as a DRAFT).'),
  typedEvent('invoice.updated', invoice, 'An invoice changed (also sent beside invoice.sent, invoice.paid and invoice.voided).'),
  typedEvent('invoice.sent', {
    ...invoice,
    from: invoiceStatus.meta({ description: 'The status before.', examples: ['DRAFT'] }),
    to: invoiceStatus.meta({ description: 'The status after.', examples: ['SENT'] }),
  }, 'An invoice was sent.'),
  typedEvent('invoice.paid', {
    ...invoice,
    from: invoiceStatus.meta({ description: 'The status before.', examples: ['SENT'] }),
    to: invoiceStatus.meta({ description: 'The status after.', examples: ['PAID'] }),
  }, 'An invoice was marked paid.'),
  typedEvent('invoice.voided', {
    ...invoice,
    from: invoiceStatus.meta({ description: 'The status before.', examples: ['SENT'] }),
    to: invoiceStatus.meta({ description: 'The status after.', examples: ['VOID'] }),
  }, 'An invoice was voided.'),
  typedEvent('invoice.deleted', invoice, 'A draft invoice was deleted: `object` is the invoice as it was.'),
  typedEvent('invoice.restored', invoice, 'A deleted draft invoice was restored from the trash (invoices.restore).'),
  typedEvent('webhook.disabled', { object: endpointOutput }, 'The service disabled a webhook endpoint that kept failing (`object` has no secret); the actor is `system`.'),
  typedEvent('import.completed', { object: importOutput }, 'An import job ended: every row processed (`object.rows` counts the created, updated and failed). The actor is the key that started it.'),
  typedEvent('import.failed', { object: importOutput }, 'An import job failed as a whole (`object.failure` says why); the rows its committed batches wrote stay.'),
] as const;

type Listed = (typeof typedEventSchemas)[number]['shape']['type']['value'];
// Fails to compile when an event type (src/events/event-types.ts) has no schema here.
const everyTypeListed: [Exclude<EventType, Listed>] extends [never] ? true : never = true;
void everyTypeListed;

/** Any event, by its `type`. */
export const typedEventOutput = z
  .discriminatedUnion('type', typedEventSchemas)
  .meta({ description: 'Something that changed in the workspace; `type` says what, and what `data` holds.' });

/** The name of an event type's schema in the OpenAPI document: lead.status_changed is LeadStatusChangedEvent. */
export function eventSchemaName(type: string): string {
  return `${type.split(/[._]/).map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('')}Event`;
}
