import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../../events/event-types';
import { idOutput, pageOutput, paginationOutput, timestampOutput } from '../shared/output-fields';

const eventTypeOutput = z.enum(EVENT_TYPES as [EventType, ...EventType[]]).meta({ examples: ['invoice.paid'] });

/** Who caused the event: the key or playground token that called, or the service itself (`system`). */
export const actorOutput = z
  .strictObject({
    kind: z.enum(['apiKey', 'playgroundToken', 'system']).meta({ examples: ['apiKey'] }),
    id: z.string().meta({ description: "The key's or token's id (never its secret), or the service's part, e.g. webhook-worker.", examples: ['key_3kTMd9VbX2qLr7NwY5pHcZ'] }),
  })
  .meta({ description: 'Who caused the event.' });

/** Stored JSON: Date fields of the objects are ISO 8601 text here, not Dates. */
const resourceSnapshot = (description: string, example?: Record<string, unknown>) =>
  z.looseObject({ id: z.string() }).meta({ description, ...(example ? { examples: [example] } : {}) });

const invoiceSnapshot = {
  id: 'inv_3kTMd9VbX2qLr7NwY5pHcZ',
  clientId: 'cli_3kTMd9VbX2qLr7NwY5pHcZ',
  currency: 'GBP',
  status: 'PAID',
  dueDate: '2030-01-31T00:00:00.000Z',
  sentAt: '2026-11-26T09:30:00.000Z',
  paidAt: '2026-12-10T15:00:00.000Z',
  voidedAt: null,
  items: [{ id: 'line_3kTMd9VbX2qLr7NwY5pHcZ', description: 'Website redesign, phase 1', quantity: 2, unitPrice: 150000, total: 300000 }],
  total: 300000,
  createdAt: '2026-11-20T14:05:00.000Z',
  updatedAt: '2026-12-10T15:00:00.000Z',
};

/** `object`, and the details some types add. */
const eventDataOutput = z
  .strictObject({
    object: resourceSnapshot(
      'The resource after the change, as the API answers it but with date-times as ISO 8601 text: a Lead (lead.*), Contact (contact.*), ' +
        'Client (client.*), Task (task.*), Invoice (invoice.*), webhook endpoint without its secret (webhook.disabled) or import job (import.*).',
      invoiceSnapshot,
    ),
    from: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'lead.status_changed and invoice.sent/paid/voided: the status before; lead.assigned: the previous assignee id, or null.', examples: ['SENT'] }),
    to: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'lead.status_changed and invoice.sent/paid/voided: the status after; lead.assigned: the new assignee id, or null.', examples: ['PAID'] }),
    // No examples: the event's example is an invoice.paid, which carries neither.
    call: resourceSnapshot('lead.call_logged: the call logged (date-times as ISO 8601 text).').optional(),
    client: resourceSnapshot("lead.converted: the lead's client, whole for a reader with clients.read, else only its id.").optional(),
    leadIds: z.array(z.string()).optional().meta({ description: 'contact.erased: the leads erased with the contact.' }),
    erased: z.literal(true).optional().meta({ description: "lead.* and contact.* of an erased person (and contact.erased): the object's personal fields are blank." }),
  })
  .meta({ description: "The event's payload: the object changed, and the details its type adds." });

/**
 * An event as events.getAll answers it (src/db/events), and as webhooks deliver it: the run-time
 * check of what is stored, loose on `data` (the objects as they were recorded). What each type
 * carries is stated in typed-events.schema.ts, which the OpenAPI document shows in its place.
 */
export const eventOutput = z
  .strictObject({
    id: idOutput('evt'),
    type: eventTypeOutput,
    createdAt: timestampOutput('2026-12-10T15:00:00.000Z'),
    orgId: idOutput('org'),
    actor: actorOutput,
    data: eventDataOutput,
  })
  .meta({ description: 'Something that changed in the workspace.' });

export type EventOutput = z.input<typeof eventOutput>;

/** Catch-up mode (`after`): no page number or total, but where to go on from. */
const catchUpPaginationOutput = z
  .strictObject({
    page: z.null(),
    pageSize: z.number().int().min(1).meta({ examples: [50] }),
    hasNextPage: z.boolean().meta({ description: 'More events follow now; ask again with nextAfter.' }),
    nextAfter: idOutput('evt').nullable().meta({ description: 'Pass as `after` to go on: the last event answered, or the `after` given when none was.' }),
  })
  .meta({ description: 'Where a catch-up walk stands.' });

/** events.getAll: a numbered page, newest first, or (with `after`) the events after one, oldest first. */
export const eventsPageOutput = pageOutput(
  eventOutput,
  // The union is the field that varies, not the whole page: generators type `data` (and revive its
  // dates) once, whichever mode answered.
  z.union([paginationOutput, catchUpPaginationOutput]).meta({ description: 'Where the page stands: numbered (page mode) or a catch-up walk (with `after`).' }),
).meta({ description: 'A page of events (page mode) or the events after a given one (catch-up mode).' });
