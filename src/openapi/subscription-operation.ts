import type { AnySubscription } from '../rpc/registry';
import { acceptsNoInput, type JsonSchema } from './json-schema';
import { inputQueryParameter, ref } from './envelopes';
import { rpcErrorResponses } from './errors';
import { inputSchemaName, outputSchemaName } from './procedure-operation';

/** `data:` text that holds JSON, described by `schema` (JSON Schema 2020-12's content keywords). */
const jsonText = (schema: JsonSchema): JsonSchema => ({ type: 'string', contentMediaType: 'application/json', contentSchema: schema });

const named = (event: string, data: JsonSchema, description: string): JsonSchema => ({
  title: event,
  type: 'object',
  required: ['event', 'data'],
  properties: { event: { const: event }, data },
  description,
});

/**
 * One Server-Sent Event of a subscription's answer, in tRPC v11's framing. OpenAPI 3.1 has no
 * schema for the items of a stream (3.2's `itemSchema`), so the schema describes one event, each
 * as its `field: value` lines, and the description says the body is a sequence of them.
 */
function streamEventSchema(subscription: AnySubscription): JsonSchema {
  const value: JsonSchema = {
    title: 'value',
    type: 'object',
    required: ['data'],
    properties: {
      data: jsonText({ type: 'object', required: ['json'], properties: { json: ref(outputSchemaName(subscription)), meta: ref('SuperjsonMeta') } }),
      ...(subscription.tracked ? { id: { type: 'string', description: "The event's id: send it back as Last-Event-ID (or input `lastEventId`) to resume after it." } } : {}),
    },
    description: 'A value (a default message, no `event:` line): superjson-serialised, so `meta` names its Dates.',
  };
  return {
    description:
      'The body is a sequence of Server-Sent Events (`text/event-stream`), each as one of these describes it: ' +
      '`connected` first, then values, `ping` when quiet, and `return` or `serialized-error` last.',
    oneOf: [
      named('connected', jsonText({
        type: 'object',
        properties: { reconnectAfterInactivityMs: { type: 'integer', minimum: 1, description: 'Reconnect when nothing (not even a ping) has come for this long.' } },
      }), "First: the client's options, as plain JSON."),
      value,
      named('ping', { const: '' }, 'Sent after a quiet interval; nothing to do.'),
      named('return', { const: '' }, 'A normal end: do not reconnect.'),
      named('serialized-error', jsonText(ref('SerializedError')),
        'The stream ends with an error. A 5xx-family code (`json.data.httpStatus` 500 or 503, JSON-RPC -32603) is passing: reconnect and resume. ' +
        'Any other (UNAUTHORIZED when the key is revoked or expires, FORBIDDEN when it loses the scope) is final.'),
    ],
  };
}

const LAST_EVENT_ID_PARAMETER = {
  name: 'Last-Event-ID',
  in: 'header',
  required: false,
  description: 'Resume after this event (what EventSource sends when it reconnects); it wins over the `lastEventId` of the input.',
  schema: { type: 'string', pattern: '^evt_[A-Za-z0-9]+$' },
  example: 'evt_3kTMd9VbX2qLr7NwY5pHcZ',
};

function describe(subscription: AnySubscription): string {
  return [
    subscription.description,
    '',
    `**Required scope:** \`${subscription.scope}\``,
    '',
    "**A subscription** (tRPC's `httpSubscriptionLink`): the answer is a `text/event-stream` that stays open. " +
      'Authenticate with `Authorization: Bearer <key>`, or, where headers cannot be sent (a browser\'s EventSource), with `?token=` ' +
      'minted by `POST /api/v1/stream-tokens`. Errors found before the stream starts answer as any action\'s, with their status.',
    ...(subscription.tracked
      ? ['', 'Each value carries its `id:`; a reconnection with `Last-Event-ID` (or `lastEventId` in the input) first sends every event after that one, then live ones: none missed, none repeated.']
      : []),
  ].join('\n');
}

/** A subscription's endpoint: GET, the input as a read's, the answer an event stream. */
export function subscriptionOperation(subscription: AnySubscription): Record<string, unknown> {
  const optional = acceptsNoInput(subscription.input);
  return {
    operationId: subscription.name,
    summary: subscription.description,
    description: describe(subscription),
    tags: [subscription.name.split('.')[0]],
    security: [{ bearerAuth: [subscription.scope] }, { streamToken: [subscription.scope] }],
    'x-required-scope': subscription.scope,
    parameters: [
      inputQueryParameter(ref(inputSchemaName(subscription)), optional),
      ...(subscription.tracked ? [LAST_EVENT_ID_PARAMETER] : []),
    ],
    responses: {
      '200': {
        description: 'The stream (`Cache-Control: no-cache, no-transform`, `X-Accel-Buffering: no`): it stays open until the client leaves, the server ends it or the service restarts (reconnect then).',
        content: { 'text/event-stream': { schema: streamEventSchema(subscription) } },
      },
      ...rpcErrorResponses('GET'),
    },
  };
}

/** `?token=`: what a browser's EventSource sends in place of the Authorization header it cannot set. */
export const STREAM_TOKEN_SCHEME = {
  type: 'apiKey',
  in: 'query',
  name: 'token',
  description:
    'A stream token, for subscriptions only: minted by `POST /api/v1/stream-tokens {"procedure": "<subscription>"}` with an API key, ' +
    'valid at most 5 minutes, for that one subscription and its scopes. Never put an API key in a URL: it is refused.',
};
