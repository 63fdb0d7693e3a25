import type { Db } from '../db/knex';
import * as eventsQueries from '../db/events';
import type { NewEvent, NewHistoryEntry } from '../db/events';
import { newId } from '../domain/ids';
import { scopeOfEventType, type EventType } from '../domain/event-types';

// Events are decided here, above the data layer: a write (src/db/...) answers what it changed,
// the procedure (or a domain module beside it, lead-events.ts) turns that into drafts, and
// `recordEvents` builds their rows and has src/db/events's one helper insert them with their
// webhook deliveries. A write that creates its objects in one statement (leads.create) builds the
// rows with `newEvents` and passes them to its write, which splices the same helper's CTEs.

/** One change to announce: its type, the object as the API returned it, and any details (`from`, `to`). */
export interface EventDraft {
  type: EventType;
  object: { id: string };
  details?: Record<string, unknown>;
  /** The history entries of the write (src/events/history.ts), recorded with this event. */
  history?: readonly HistoryDraft[];
}

/** A history entry as a write decides it; the entry's id is new, its actor, procedure and request id its event's. */
export type HistoryDraft = Omit<NewHistoryEntry, 'id'>;

/**
 * Who records events: the workspace, and the key or token that called (or `{kind: 'system'}`).
 * A procedure passes its `ctx`, whose `effects` are marked as having recorded events: the
 * dispatcher wakes the workspace's live readers after such a call commits, and after no other.
 * The service's own writes (the webhook worker's) have no `effects` and wake no one.
 */
export interface EventSource {
  orgId: string;
  actor: { kind: string; id: string };
  effects?: { recordedEvents: boolean };
  /** The call being served (a procedure's ctx): its history entries name its procedure and request id. */
  call?: { procedure: string; requestId: string | null; traceParent?: string | null };
}

/**
 * The rows that record `drafts`: each with a new id and the read scope its type needs. Marks the
 * source's call (its `effects`) as having recorded events: the rows go into its transaction or
 * statement, which commits or rolls back as a whole, and a call that fails wakes no one anyway.
 */
export function newEvents(source: EventSource, drafts: readonly EventDraft[]): NewEvent[] {
  if (source.effects && drafts.length > 0) source.effects.recordedEvents = true;
  return drafts.map((draft) => ({
    orgId: source.orgId,
    id: newId('evt'),
    type: draft.type,
    scope: scopeOfEventType(draft.type),
    actor: source.actor,
    objectId: draft.object.id,
    data: { object: draft.object, ...draft.details },
    call: source.call ?? null,
    ...(draft.history && draft.history.length > 0 && { history: draft.history.map((entry) => ({ ...entry, id: newId('hist') })) }),
  }));
}

/**
 * Records the events of a write in the write's own transaction (`trx`), with their webhook
 * deliveries: if the change rolls back, no event was ever recorded. Nothing is locked: a
 * workspace's writers record their events in parallel (src/db/events/record.ts says how they are
 * ordered). The actor is the key or token that called, or `{kind: 'system'}` for what the service
 * does by itself (disabling a failing webhook endpoint).
 */
export function recordEvents(trx: Db, source: EventSource, drafts: readonly EventDraft[]): Promise<void> {
  return eventsQueries.insertEvents(trx, newEvents(source, drafts));
}
