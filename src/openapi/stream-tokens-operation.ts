import type { SubscriptionRegistry } from '../rpc/registry';
import { STREAM_TOKENS_PATH } from '../http/stream-token-route';
import { ref } from './envelopes';
import { restErrorResponses } from './errors';
import type { JsonSchema } from './json-schema';

export const STREAM_TOKEN_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['token', 'expiresAt', 'procedure', 'scopes'],
  additionalProperties: false,
  properties: {
    token: { type: 'string', description: 'Pass as `?token=` to the subscription (EventSource cannot send Authorization).', examples: ['eyJhbGciOiJIUzI1NiJ9.eyJ0eXAiOiJzdHJlYW0ifQ.c2lnbmF0dXJl'] },
    expiresAt: { type: 'string', format: 'date-time', description: 'At most 5 minutes away, and never after the key itself expires.', examples: ['2026-12-10T15:05:00.000Z'] },
    procedure: { type: 'string', description: 'The one subscription it opens.', examples: ['events.onEvent'] },
    scopes: { type: 'array', items: { type: 'string' }, description: "What it reads with: the subscription's scopes that the key holds.", examples: [['events.read', 'leads.read']] },
  },
  description: 'A short-lived token that opens one subscription, for a browser EventSource.',
};

/** `POST /api/v1/stream-tokens`: plain JSON in and out, as the REST routes (errors in the REST error body). */
export function streamTokensPathItem(subscriptions: SubscriptionRegistry): Record<string, Record<string, unknown>> {
  const exposed = [...subscriptions.values()].filter((s) => s.exposed);
  const names = exposed.map((s) => s.name);
  return {
    [STREAM_TOKENS_PATH]: {
      post: {
        operationId: 'createStreamToken',
        summary: 'A token for a browser EventSource to open one subscription',
        description: [
          "EventSource cannot send an Authorization header: mint a token with the key and open the subscription with `?token=`. It lasts at most 5 minutes (a stream opened with it may run longer), opens only the subscription named, and reads only with that subscription's scopes.",
          '',
          `**Required scope:** the subscription's own (${exposed.map((s) => `\`${s.scope}\` for ${s.name}`).join(', ')}).`,
        ].join('\n'),
        tags: ['events'],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['procedure'], additionalProperties: false, properties: { procedure: { type: 'string', enum: names, description: 'The subscription to open.' } } },
            },
          },
        },
        responses: {
          '201': { description: 'The token.', content: { 'application/json': { schema: ref('StreamToken') } } },
          ...restErrorResponses(['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'], {
            FORBIDDEN: "The workspace is not on the maximum tier, or the key lacks the subscription's scope.",
            NOT_FOUND: 'No subscription has that name.',
          }),
        },
      },
    },
  };
}
