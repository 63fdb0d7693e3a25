import type { EventDraft } from './record-events';
import type { Lead } from '../db/leads/shape';
import type { LeadStatus } from '../domain/lead-status';

/**
 * The events of a change to a lead: always `lead.updated`, plus `lead.status_changed` and
 * `lead.assigned` (each with from/to) when those fields moved. `before` is the row as locked.
 */
export function leadChangeEvents(before: { status: LeadStatus; assignedToId: string | null }, after: Lead): EventDraft[] {
  const events: EventDraft[] = [{ type: 'lead.updated', object: after }];
  if (before.status !== after.status) {
    events.push({ type: 'lead.status_changed', object: after, details: { from: before.status, to: after.status } });
  }
  if (before.assignedToId !== after.assignedToId) {
    events.push({ type: 'lead.assigned', object: after, details: { from: before.assignedToId, to: after.assignedToId } });
  }
  return events;
}
