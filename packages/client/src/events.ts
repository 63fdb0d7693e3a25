import type { components } from './generated/openapi.js';
import { eventDatePaths } from './generated/event-dates.js';

type Schemas = components['schemas'];

/**
 * An event, told apart by `type`: `data.object` is the resource's own type (a `Lead` for `lead.*`,
 * an `Invoice` for `invoice.*`, ...), and the types that add details say which (`from`/`to`,
 * `call`, `client`). What `events.getAll` answers, what `events.subscribe` yields and what
 * `constructWebhookEvent` returns, Dates as Dates throughout.
 */
export type WorkspaceEvent = Schemas['Event'];
export type WorkspaceEventType = WorkspaceEvent['type'];
/** The event of one type: `WorkspaceEventOf<'invoice.paid'>['data']['to']`. */
export type WorkspaceEventOf<T extends WorkspaceEventType> = Extract<WorkspaceEvent, { type: T }>;

export type Contact = Schemas['Contact'];
export type Client = Schemas['Client'];
export type Task = Schemas['Task'];
export type Invoice = Schemas['Invoice'];
export type LeadCall = Schemas['LeadCall'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];

type DatesAsText<T> = T extends Date ? string : T extends readonly (infer U)[] ? DatesAsText<U>[] : T extends object ? { [K in keyof T]: DatesAsText<T[K]> } : T;

/**
 * An event as the wire carries it to a client that does not revive the date-times inside `data`
 * (the official tRPC client: `createdAt` is a Date through superjson, `data`'s are ISO 8601 text).
 */
export type WorkspaceEventAsSent = AsSent<WorkspaceEvent>;

/** Distributes over the union, so the result is still told apart by `type`. */
type AsSent<E> = E extends { data: infer D } ? Omit<E, 'data'> & { data: DatesAsText<D> } : never;

/**
 * Makes an event as sent (stored JSON: date-times as ISO 8601 text, and `createdAt` too in a
 * webhook's body) the typed event: each date-time the event's type holds becomes a Date. Changes
 * `event` in place and answers it. An unknown type (one added to the service after this client
 * was built) keeps its `data` as sent.
 */
export function reviveEvent(event: unknown): WorkspaceEvent {
  if (event === null || typeof event !== 'object') throw new TypeError('An event must be an object');
  const type = (event as { type?: unknown }).type;
  const paths = (typeof type === 'string' ? eventDatePaths[type] : undefined) ?? ['createdAt'];
  for (const path of paths) reviveAt(event, path.split('.'));
  return event as WorkspaceEvent;
}

function reviveAt(value: unknown, path: readonly string[]): void {
  if (value === null || typeof value !== 'object') return;
  const [head, ...rest] = path as [string, ...string[]];
  if (head === '*') {
    if (Array.isArray(value)) for (const item of value) reviveAt(item, rest);
    return;
  }
  const holder = value as Record<string, unknown>;
  if (rest.length > 0) return reviveAt(holder[head], rest);
  const text = holder[head];
  if (typeof text !== 'string') return;
  const date = new Date(text);
  if (!Number.isNaN(date.getTime())) holder[head] = date;
}
