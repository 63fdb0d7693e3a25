import { z } from 'zod';
import { AppError, invalidInput } from '../../errors/app-error';
import { ALL_EVENTS, EVENT_READ_SCOPES, EVENT_TYPES, firstUnreadableType } from '../../events/event-types';
import type { ProcedureContext } from '../../rpc/define-procedure';
import { webhookHostProblem, webhookUrlProblem } from '../../webhooks/url-safety';
import type { EndpointOwner } from '../../db/queries/webhooks.queries';
import { requiredText, text } from '../shared/fields';

/** A workspace's endpoints are few by design; more is a 409 naming the limit. */
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;

/** Checked against the deployment's URL policy in the handler (it depends on the environment). */
export const endpointUrlField = requiredText(2048);

export const endpointDescriptionField = text(500).nullable();

/**
 * Known event types, or `"*"` alone. Duplicates are dropped (first occurrence kept) rather than
 * refused: a set was meant, and the stored list is what the answer shows.
 */
export const endpointEventsField = z
  .array(z.enum([ALL_EVENTS, ...EVENT_TYPES], { error: `must be a known event type or "${ALL_EVENTS}"` }))
  .min(1, 'must name at least one event type')
  .max(EVENT_TYPES.length + 1)
  .refine((events) => !events.includes(ALL_EVENTS) || events.every((e) => e === ALL_EVENTS), `"${ALL_EVENTS}" must be given alone`)
  .transform((events) => [...new Set(events)]);

/**
 * A 400 at `url` when the address breaks the policy: its form first, then (production) where its
 * host resolves. Called before any transaction, so no DNS lookup holds a connection or a lock.
 */
export async function assertEndpointUrlAllowed(url: string, ctx: Pick<ProcedureContext, 'webhookUrlPolicy'>): Promise<void> {
  const problem = webhookUrlProblem(url, ctx.webhookUrlPolicy) ?? (await webhookHostProblem(url, ctx.webhookUrlPolicy));
  if (problem) throw invalidInput([{ path: ['url'], message: problem }]);
}

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
