import { defineSubscription } from '../../rpc/define-subscription';
import * as eventsQueries from '../../db/events';
import { AppError } from '../../errors/app-error';
import { EVENT_READ_SCOPES, EVENT_TYPES, scopeOfEventType, type EventType } from '../../events/event-types';
import { enumOf, idOf, listOf, objectOf } from '../shared/fields';
import { eventOutput } from './event.schema';
import { readableBy, visibleTypes } from './get-all';

const eventType = enumOf(EVENT_TYPES as [EventType, ...EventType[]], 'an event type');

export const eventsOnEventInput = objectOf({
  /** Without it, every type the key may read. */
  types: listOf(eventType, { of: 'event types', min: 1, max: EVENT_TYPES.length }).optional(),
  /** Resume after this event (tRPC's client and EventSource send it back on reconnection). */
  lastEventId: idOf('evt').nullable().optional(),
}).prefault({});

export const eventsOnEvent = defineSubscription({
  name: 'events.onEvent',
  scope: 'events.read',
  exposed: true,
  description: "The workspace's events as they commit, as events.getAll answers them; resumes after `lastEventId` with none missed or repeated.",
  input: eventsOnEventInput,
  output: eventOutput,
  readsWith: EVENT_READ_SCOPES,
  tracked: true,
  async open({ ctx, input, sink }) {
    const asked = input.types === undefined ? undefined : new Set<string>(visibleTypes(ctx.scopes(), input));
    let from: eventsQueries.EventPosition | 'now' = 'now';
    if (input.lastEventId) {
      const position = await eventsQueries.positionOf(ctx.db, ctx.orgId, input.lastEventId);
      if (!position) {
        throw new AppError('NOT_FOUND', `No event ${JSON.stringify(input.lastEventId)} in this workspace (events are kept for a limited time): subscribe again without lastEventId`);
      }
      from = position;
    }
    return ctx.live.events.follow(ctx.orgId, from, {
      deliver(events) {
        // The scopes of now, not of when the stream opened: a narrowed key stops seeing what it lost.
        const scopes = ctx.scopes();
        for (const event of events) {
          if (asked && !asked.has(event.type)) continue;
          if (!scopes.has(scopeOfEventType(event.type))) continue;
          sink.next(readableBy(scopes, event), event.id);
        }
      },
      fail: (err) => sink.error(err),
    });
  },
});
