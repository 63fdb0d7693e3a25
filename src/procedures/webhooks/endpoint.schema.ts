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
});

export const endpointUrlField = withFieldCheck(withKind('url', urlSchema), {
  failure: 'BAD_REQUEST',
  check: async (url, { webhookUrlPolicy }) => {
    const problem = await webhookHostProblem(url, webhookUrlPolicy);
    return problem && `expected ${URL_EXPECTED} whose host has a public address (${problem})`;
  },
});

export const endpointDescriptionField = text(500).nullable();

/**
 * Known event types, or `"*"` alone. Duplicates are dropped (first occurrence kept) rather than
 * refused: a set was meant, and the stored list is what the answer shows.
 */
export const endpointEventsField = withKind(
  'list',
  listOf(enumOf([ALL_EVENTS, ...EVENT_TYPES], `a known event type or "${ALL_EVENTS}"`), { of: 'event types', min: 1, max: EVENT_TYPES.length + 1 })
    .refine((events) => !events.includes(ALL_EVENTS) || events.every((e) => e === ALL_EVENTS), { error: `expected "${ALL_EVENTS}" alone, or event types without it` })
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
