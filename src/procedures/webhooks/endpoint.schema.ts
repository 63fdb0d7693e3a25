import { z } from 'zod';
import { AppError } from '../../errors/app-error';
import { ALL_EVENTS, EVENT_READ_SCOPES, EVENT_TYPES, firstUnreadableType } from '../../events/event-types';
import type { ProcedureContext } from '../../rpc/define-procedure';
import { withFieldCheck } from '../../rpc/field-checks';
import { parseContext } from '../../rpc/parse-context';
import { webhookHostProblem, webhookUrlProblem } from '../../webhooks/url-safety';
import type { EndpointOwner } from '../../db/webhooks';
import { enumOf, listOf, storable, text, withKind } from '../shared/fields';
import { expected, expectedLength } from '../shared/expected';
import { deletedOutput, idOutput, integerOutput, textOutput, timestampOutput } from '../shared/output-fields';

/** A workspace's endpoints are few by design; more is a 409 naming the limit. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;

const URL_EXPECTED = 'an https:// URL, e.g. https://hooks.example.com/crm';
const MAX_URL_LENGTH = 2048;

/**
 * Where events are sent, under the deployment's URL policy (from the parse context): its form is
 * checked with the schema, where its host resolves (production) after it, with the input's other
 * field checks (src/rpc/field-checks.ts). Both before any transaction, so no DNS lookup holds a
 * connection or a lock (unless the call runs idempotently, in its transaction).
 */
function urlMessage(issue: z.core.$ZodRawIssue): string {
  return issue.code === 'too_big' ? expectedLength(`${URL_EXPECTED} (at most ${MAX_URL_LENGTH} characters)`, issue.input) : expected(URL_EXPECTED, issue.input);
}

// A transform, not a refinement: it runs only on text that passed the checks before it.
const urlSchema = storable(z.string({ error: urlMessage }).trim().min(1).max(MAX_URL_LENGTH)).transform((url, ctx) => {
  const problem = webhookUrlProblem(url, parseContext().webhookUrlPolicy);
  if (problem) ctx.addIssue({ code: 'custom', message: `expected ${URL_EXPECTED} (this one ${problem})`, input: url });
  return url;
}).meta({
  format: 'uri',
  // What the document can say of webhookUrlProblem: https, a host, no credentials, no fragment (trimmed first).
  // A name's last label starts with a letter (one of digits is read as an IPv4 address), or an IPv4 address.
  pattern: '^\\s*[Hh][Tt][Tt][Pp][Ss]://(?:(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?|(?:(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9]))(?::[0-9]{1,4})?(?:[/?][^#]*)?\\s*$',
  description: 'An https:// URL with a host, without credentials or a fragment; in production its host must resolve to public addresses only (checked when it is saved).',
  examples: ['https://hooks.example.com/workspace'],
});

export const endpointUrlField = withFieldCheck(withKind('url', urlSchema), {
  failure: 'BAD_REQUEST',
  check: async (url, { webhookUrlPolicy }) => {
    const problem = await webhookHostProblem(url, webhookUrlPolicy);
    return problem && `expected ${URL_EXPECTED} whose host has a public address (${problem})`;
  },
});

export const endpointDescriptionField = text(500, { example: 'Invoices for the accounting sync' }).nullable();

/**
 * Known event types, or `"*"` alone. Duplicates are dropped (first occurrence kept) rather than
 * refused: a set was meant, and the stored list is what the answer shows.
 */
export const endpointEventsField = withKind(
  'list',
  listOf(enumOf([ALL_EVENTS, ...EVENT_TYPES], `a known event type or "${ALL_EVENTS}"`), { of: 'event types', min: 1, max: EVENT_TYPES.length + 1 })
    .refine((events) => !events.includes(ALL_EVENTS) || events.every((e) => e === ALL_EVENTS), { error: `expected "${ALL_EVENTS}" alone, or event types without it` })
    // The refinement in JSON Schema: a list holding "*" holds nothing else (repeats are dropped).
    .meta({ if: { contains: { const: ALL_EVENTS } }, then: { items: { const: ALL_EVENTS } }, examples: [['invoice.paid', 'invoice.created']] })
    .transform((events) => [...new Set(events)]),
);

/** Subscribing to a type needs its read scope: no key has events sent anywhere that it could not read itself. */
export function assertCanSubscribe(scopes: ReadonlySet<string>, events: readonly string[]): void {
  const unreadable = firstUnreadableType(scopes, events);
  if (unreadable) throw new AppError('FORBIDDEN', `missing scope: ${unreadable.scope} (to subscribe to ${unreadable.type})`);
}

/**
 * The caller as the endpoint's owner. Its event read scopes are kept with the endpoint and bound
 * what it receives (what `"*"` means, and a check at every fan-out): never more than the owner could read.
 */
export function ownerOf(ctx: Pick<ProcedureContext, 'actor' | 'scopes'>): EndpointOwner {
  return { ownerKind: ctx.actor.kind, ownerId: ctx.actor.id, readScopes: EVENT_READ_SCOPES.filter((scope) => ctx.scopes.has(scope)) };
}

const endpointFields = {
  id: idOutput('wh'),
  url: z.string().meta({ format: 'uri', examples: ['https://hooks.example.com/workspace'] }),
  description: textOutput('Invoices for the accounting sync').nullable(),
  events: z
    .array(z.enum([ALL_EVENTS, ...EVENT_TYPES]))
    .meta({ description: `Event types, or ["${ALL_EVENTS}"] for every type the endpoint's owner may read.`, examples: [['invoice.sent', 'invoice.paid']] }),
  enabled: z.boolean().meta({ examples: [true] }),
  disabledReason: textOutput('Disabled automatically: every delivery attempt has failed since 2026-11-23T09:30:00.000Z')
    .nullable()
    .meta({ description: 'Why the service disabled it (failing for days); null otherwise.', examples: [null] }),
  failingSince: timestampOutput('2026-11-23T09:30:00.000Z').nullable().meta({ description: 'Since when every attempt has failed; null while it answers.', examples: [null] }),
  createdAt: timestampOutput('2026-11-20T14:05:00.000Z'),
  updatedAt: timestampOutput('2026-11-26T09:30:00.000Z'),
};

/** A webhook endpoint as the API answers it (src/db/webhooks): never its signing secret. */
export const endpointOutput = z.strictObject(endpointFields).meta({ description: 'A webhook endpoint, without its signing secret.' });

/** An endpoint's delivery figures (src/db/webhooks/endpoint-stats.ts), shown by webhooks.getAll and getById. */
const deliveryStatsOutput = z
  .strictObject({
    lastAttemptAt: timestampOutput('2026-12-10T15:00:01.000Z').nullable().meta({ description: 'When the latest delivery attempt (or redelivery) was made; null before any.' }),
    lastStatus: z.enum(['succeeded', 'failed']).nullable().meta({ description: 'Whether that attempt was answered 2xx; null before any.', examples: ['succeeded'] }),
    lastStatusCode: integerOutput(200).nullable().meta({ description: "That attempt's HTTP status; null when no answer came, or before any." }),
    attempts24h: integerOutput(120).min(0).meta({ description: 'Delivery attempts in the last 24 hours (by the hour).' }),
    successRate24h: z.number().min(0).max(1).nullable().meta({ description: 'The share of those answered 2xx, 0 to 1; null without attempts.', examples: [0.975] }),
  })
  .meta({ description: "The endpoint's latest delivery attempt and its last 24 hours (test events are not counted)." });

/** webhooks.getAll and getById: an endpoint with its delivery figures. */
export const endpointWithStatsOutput = z
  .strictObject({ ...endpointFields, deliveryStats: deliveryStatsOutput })
  .meta({ description: 'A webhook endpoint, without its signing secret, with its delivery figures.' });

const secretOutput = z
  .string()
  .meta({ description: 'The signing secret (whsec_ and 32 base62 characters): shown only in this answer.', examples: ['whsec_9fKq2LmXv7RtB3nZc8HdW5yJp1sGa4Ue'] });

/** webhooks.create: the new endpoint and its signing secret, answered this once. */
export const endpointCreatedOutput = z
  .strictObject({ ...endpointFields, secret: secretOutput })
  .meta({ description: 'A new webhook endpoint with its signing secret, shown only in this answer.' });

/** webhooks.rotateSecret: the endpoint, its new secret (answered this once), and until when the replaced one stays valid. */
export const endpointRotatedOutput = z
  .strictObject({
    ...endpointFields,
    secret: secretOutput,
    previousSecretExpiresAt: timestampOutput('2026-11-26T10:30:00.000Z')
      .nullable()
      .meta({ description: 'Until when the replaced secret also signs deliveries; null when it stopped at once.' }),
  })
  .meta({ description: 'A webhook endpoint with its new signing secret, shown only in this answer.' });

/** What webhooks.delete answers. */
export const endpointDeletedOutput = deletedOutput('wh', 'webhook endpoint');
