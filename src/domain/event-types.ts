/**
 * Every event type, by family. A family's events carry objects of one resource, so seeing them
 * needs that resource's read scope: a key that cannot read invoices does not hear of them either.
 * Pure data, so the data layer may name the types it stores (src/db imports nothing above it);
 * what a reader's scopes let it see of an event is src/events/event-types.ts.
 */
export const EVENT_FAMILIES = {
  lead: {
    scope: 'leads.read',
    types: ['lead.created', 'lead.updated', 'lead.status_changed', 'lead.assigned', 'lead.call_logged', 'lead.converted', 'lead.deleted', 'lead.restored'],
  },
  contact: { scope: 'contacts.read', types: ['contact.created', 'contact.updated', 'contact.deleted', 'contact.restored', 'contact.erased'] },
  client: { scope: 'clients.read', types: ['client.created', 'client.updated', 'client.deleted', 'client.restored'] },
  task: { scope: 'tasks.read', types: ['task.created', 'task.updated', 'task.completed', 'task.deleted', 'task.restored'] },
  invoice: {
    scope: 'invoices.read',
    types: ['invoice.created', 'invoice.updated', 'invoice.sent', 'invoice.paid', 'invoice.voided', 'invoice.deleted', 'invoice.restored'],
  },
  webhook: { scope: 'webhooks.read', types: ['webhook.disabled'] },
  import: { scope: 'imports.read', types: ['import.completed', 'import.failed'] },
} as const;

type Families = typeof EVENT_FAMILIES;
export type EventType = Families[keyof Families]['types'][number];

export const EVENT_TYPES: readonly EventType[] = Object.values(EVENT_FAMILIES).flatMap((family) => family.types);

/** `"*"` subscribes a webhook endpoint to every type its creator may read. */
export const ALL_EVENTS = '*';

/** Who acted: a key or playground token through the API, or the service itself (a webhook disabled). */
export type ActorKind = 'apiKey' | 'playgroundToken' | 'system';

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

/** The read scopes that open some event family: what a webhook endpoint keeps of its creator's. */
export const EVENT_READ_SCOPES: readonly string[] = [...new Set(Object.values(EVENT_FAMILIES).map((family) => family.scope))];
