import { embedIfReadable } from '../auth/readable-embeds';

/**
 * Every event type, by family. A family's events carry objects of one resource, so seeing them
 * needs that resource's read scope: a key that cannot read invoices does not hear of them either.
 */
export const EVENT_FAMILIES = {
  lead: {
    scope: 'leads.read',
    types: ['lead.created', 'lead.updated', 'lead.status_changed', 'lead.assigned', 'lead.call_logged', 'lead.converted', 'lead.deleted'],
  },
  contact: { scope: 'contacts.read', types: ['contact.created', 'contact.updated', 'contact.deleted'] },
  client: { scope: 'clients.read', types: ['client.created', 'client.updated', 'client.deleted'] },
  task: { scope: 'tasks.read', types: ['task.created', 'task.updated', 'task.completed', 'task.deleted'] },
  invoice: {
    scope: 'invoices.read',
    types: ['invoice.created', 'invoice.updated', 'invoice.sent', 'invoice.paid', 'invoice.voided', 'invoice.deleted'],
  },
  webhook: { scope: 'webhooks.read', types: ['webhook.disabled'] },
} as const;

type Families = typeof EVENT_FAMILIES;
export type EventType = Families[keyof Families]['types'][number];

export const EVENT_TYPES: readonly EventType[] = Object.values(EVENT_FAMILIES).flatMap((family) => family.types);

/** `"*"` subscribes a webhook endpoint to every type its creator may read. */
export const ALL_EVENTS = '*';

const scopeByType = new Map<string, string>(
  Object.values(EVENT_FAMILIES).flatMap((family) => family.types.map((type) => [type, family.scope] as const)),
);

export function isEventType(value: string): value is EventType {
  return scopeByType.has(value);
}

/** The read scope an event type needs. */
export function scopeOfEventType(type: EventType): string {
  return scopeByType.get(type)!;
}

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

/** The read scopes that open some event family: what a webhook endpoint keeps of its creator's. */
export const EVENT_READ_SCOPES: readonly string[] = [...new Set(Object.values(EVENT_FAMILIES).map((family) => family.scope))];
