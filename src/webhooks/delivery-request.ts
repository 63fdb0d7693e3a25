import type { ClaimedDelivery } from '../db/webhooks/deliveries';
import { signPayload } from './signature';
import { eventDataReadableWith } from '../events/event-types';

export const WEBHOOK_USER_AGENT = 'WorkspaceAPI-Webhooks/1';

/**
 * The body and headers of one attempt. The body is the event as the events API answers it, in plain
 * JSON (`createdAt` ISO 8601); it is serialised once, and that exact text is what is signed.
 */
export function deliveryRequest(claim: Pick<ClaimedDelivery, 'orgId' | 'event' | 'secrets' | 'readScopes' | 'ownerKey'>, now: Date = new Date()): { body: string; headers: Record<string, string> } {
  const { event } = claim;
  const body = JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    orgId: claim.orgId,
    actor: { kind: event.actorKind, id: event.actorId },
    data: eventDataReadableWith(event.type, event.data, payloadScopes(claim)),
  });
  return { body, headers: signedHeaders(body, event, claim.secrets, now) };
}

/** A delivery's headers for this exact body, signed with the endpoint's secrets at `now` (a test event's too). */
export function signedHeaders(body: string, event: { id: string; type: string }, secrets: readonly string[], now: Date): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': WEBHOOK_USER_AGENT,
    'Workspace-Event-Id': event.id,
    'Workspace-Event-Type': event.type,
    'Workspace-Signature': signPayload(secrets, body, Math.floor(now.getTime() / 1000)),
  };
}

/** What the endpoint may read: the read scopes it keeps, and of those, what its owner key still holds. */
function payloadScopes(claim: Pick<ClaimedDelivery, 'readScopes' | 'ownerKey'>): ReadonlySet<string> {
  const held = claim.ownerKey ? new Set(claim.ownerKey.scopes) : undefined;
  return new Set(claim.readScopes.filter((scope) => !held || held.has(scope)));
}
