import { embedIfReadable } from '../auth/readable-embeds';
import { EVENT_TYPES, isEventType, scopeOfEventType, type EventType } from '../domain/event-types';

// The catalogue of types (pure data) is src/domain/event-types.ts, where the data layer can name
// them; here, what a reader's scopes let it see of events. Both are imported from here above db/.
export { ALL_EVENTS, EVENT_FAMILIES, EVENT_READ_SCOPES, EVENT_TYPES, isEventType, scopeOfEventType, type EventType } from '../domain/event-types';

/** The event types these scopes may see. */
export function eventTypesReadableWith(scopes: ReadonlySet<string>): EventType[] {
  return EVENT_TYPES.filter((type) => scopes.has(scopeOfEventType(type)));
}

/** The first of `types` these scopes may not see, with the scope it needs; undefined when all are readable. */
export function firstUnreadableType(scopes: ReadonlySet<string>, types: readonly string[]): { type: EventType; scope: string } | undefined {
  for (const type of types) {
    if (isEventType(type) && !scopes.has(scopeOfEventType(type))) return { type, scope: scopeOfEventType(type) };
  }
  return undefined;
}

/**
 * Fields of an event's data that carry another resource whole, with that resource's read scope
 * (the object of an event is its family's own resource, which the family's scope covers).
 */
export const EMBEDDED_IN_EVENTS: Partial<Record<EventType, Readonly<Record<string, string>>>> = {
  'lead.converted': { client: 'clients.read' },
};

/** An event's data as a reader with these scopes may see it: embedded resources it cannot read become references by id. */
export function eventDataReadableWith(type: string, data: Record<string, unknown>, scopes: ReadonlySet<string>): Record<string, unknown> {
  const embedded = isEventType(type) ? EMBEDDED_IN_EVENTS[type] : undefined;
  if (!embedded) return data;
  const readable = { ...data };
  for (const [field, readScope] of Object.entries(embedded)) {
    const object = readable[field] as { id: string } | null | undefined;
    if (object) readable[field] = embedIfReadable(scopes, readScope, object);
  }
  return readable;
}
