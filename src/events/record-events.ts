import type { Db } from '../db/knex';
import * as eventsQueries from '../db/events';
import { newId } from '../domain/ids';
import { scopeOfEventType, type EventType } from './event-types';

/** One change to announce: its type, the object as the API returned it, and any details (`from`, `to`). */
export interface EventDraft {
  type: EventType;
  object: { id: string };
  details?: Record<string, unknown>;
}

/**
 * Records the events of a write in the write's own transaction (`trx`), with their webhook
 * deliveries: if the change rolls back, no event was ever recorded. A write announces all its
 * events in one call, as its last step: the workspace's event counter stays locked from here to
 * the commit (src/db/events says why). The actor is the key or token that called, or
 * `{kind: 'system'}` for what the service does by itself (disabling a failing webhook endpoint).
 */
export function recordEvents(
  trx: Db,
  ctx: { orgId: string; actor: { kind: string; id: string } },
  drafts: readonly EventDraft[],
): Promise<void> {
  return eventsQueries.insertWithDeliveries(
    trx,
    drafts.map((draft) => ({
      orgId: ctx.orgId,
      id: newId('evt'),
      type: draft.type,
      scope: scopeOfEventType(draft.type),
      actor: ctx.actor,
      objectId: draft.object.id,
      data: { object: draft.object, ...draft.details },
    })),
  );
}
