import { EVENT_TYPES, scopeOfEventType, type EventType } from '../events/event-types';
import { eventSchemaName } from '../procedures/events/typed-events.schema';
import { ref } from './envelopes';
import type { JsonSchema } from './json-schema';

/**
 * `Event`: any event, as the union of one schema per type (typed-events.schema.ts), told apart by
 * `type`. It takes the place of the run-time check's looser `eventOutput` in the document, so
 * events.getAll, events.onEvent and every webhook show one and the same typed event.
 */
export function eventUnionSchema(): JsonSchema {
  return {
    description:
      'Something that changed in the workspace: `type` says what, and so what `data` holds. Date-times inside `data` are ' +
      'ISO 8601 text in every answer (the object as it was recorded; `meta` does not name them): the client package revives them.',
    oneOf: EVENT_TYPES.map((type) => ref(eventSchemaName(type))),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(EVENT_TYPES.map((type) => [type, `#/components/schemas/${eventSchemaName(type)}`])) },
  };
}

const header = (name: string, description: string, schema: JsonSchema, example: string) => ({ name, in: 'header', required: true, description, schema, example });

const DELIVERY_HEADERS = [
  header(
    'Workspace-Signature',
    '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint\'s secret>`, one `v1` per valid secret during a rotation. ' +
      'Check it on the raw body and refuse a `t` older than 5 minutes (the client package\'s `constructWebhookEvent` does both).',
    { type: 'string', pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$' },
    't=1795500000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  ),
  header('Workspace-Event-Id', "The event's id: delivery is at least once, so skip an id already handled.", { type: 'string' }, 'evt_3kTMd9VbX2qLr7NwY5pHcZ'),
  header('Workspace-Event-Type', "The event's `type`.", { type: 'string' }, 'invoice.paid'),
];

function webhook(type: EventType): Record<string, Record<string, unknown>> {
  return {
    post: {
      operationId: `webhook.${type}`,
      summary: `${type} delivered to a webhook endpoint`,
      description:
        `What an endpoint subscribed to \`${type}\` receives: the event as events.getAll answers it, as plain JSON. ` +
        `Only endpoints whose owner holds \`${scopeOfEventType(type)}\` receive it.`,
      tags: ['webhooks'],
      security: [],
      parameters: DELIVERY_HEADERS,
      requestBody: { required: true, content: { 'application/json': { schema: ref(eventSchemaName(type)) } } },
      responses: {
        '2XX': { description: 'Received: any 2xx within the delivery timeout (5 s by default) counts as delivered.' },
        default: { description: 'Anything else, or no answer in time: retried with exponential backoff and jitter for about a day.' },
      },
    },
  };
}

/** OpenAPI 3.1 `webhooks`: one entry per event type, its body that type's schema. */
export function eventWebhooks(): Record<string, Record<string, Record<string, unknown>>> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, webhook(type)]));
}
