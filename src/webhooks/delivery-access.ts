import type { ClaimedDelivery } from '../db/webhooks/deliveries';
import { isEventType, scopeOfEventType } from '../events/event-types';

/**
 * Why this delivery must not be sent, checked again at every attempt (the delivery row was made
 * when the event happened, and access may have been withdrawn since): the endpoint must keep the
 * event's read scope, and an endpoint made with an API key carries that key's authority, so the
 * key must still exist, be neither revoked nor expired, and still hold the scope. Undefined: send.
 */
export function deliveryAccessProblem(claim: { event: { type: string } } & Pick<ClaimedDelivery, 'readScopes' | 'ownerKind' | 'ownerId' | 'ownerKey'>): string | undefined {
  const type = claim.event.type;
  if (!isEventType(type)) return `unknown event type ${type}`;
  const scope = scopeOfEventType(type);
  if (!claim.readScopes.includes(scope)) return `the endpoint does not keep the read scope ${scope} that ${type} needs`;
  if (claim.ownerKind !== 'apiKey') return undefined;
  const key = claim.ownerKey;
  if (!key) return `the endpoint's owner API key ${claim.ownerId} no longer exists`;
  if (key.revoked) return `the endpoint's owner API key ${claim.ownerId} was revoked`;
  if (key.expired) return `the endpoint's owner API key ${claim.ownerId} has expired`;
  if (!key.scopes.includes(scope)) return `the endpoint's owner API key ${claim.ownerId} no longer holds ${scope}`;
  return undefined;
}
