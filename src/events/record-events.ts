import type { Db } from '../db/knex';
import * as eventsQueries from '../db/events';
import type { NewEvent } from '../db/events';
import { newId } from '../domain/ids';
import { scopeOfEventType, type EventType } from './event-types';

/** One change to announce: its type, the object as the API returned it, and any details (`from`, `to`). */
export interface EventDraft {
  type: EventType;
  object: { id: string };
  details?: Record<string, unknown>;
}

/** Who records events: the workspace, and the key or token that called (or `{kind: 'system'}`). */
export interface EventSource {
  orgId: string;
  actor: { kind: string; id: string };
}

/** The rows that record `drafts`: each with a new id and the read scope its type needs. */
export function newEvents(source: EventSource, drafts: readonly EventDraft[]): NewEvent[] {
  return drafts.map((draft) => ({
    orgId: source.orgId,
    id: newId('evt'),
    type: draft.type,
    scope: scopeOfEventType(draft.type),
    actor: source.actor,
    objectId: draft.object.id,
    data: { object: draft.object, ...draft.details },
  }));
}

/**
 * Records the events of a write in the write's own transaction (`trx`), with their webhook
 * deliveries: if the change rolls back, no event was ever recorded. Nothing is locked: a
 * workspace's writers record their events in parallel (src/db/events says how they are ordered).
 * The actor is the key or token that called, or `{kind: 'system'}` for what the service does by
 * itself (disabling a failing webhook endpoint). A write that records its events in its own
 * statement (the leads' createLead) calls `newEvents` and the events' queries itself.
 */
export function recordEvents(trx: Db, source: EventSource, drafts: readonly EventDraft[]): Promise<void> {
  return eventsQueries.insertWithDeliveries(trx, newEvents(source, drafts));
}
