import type { EventDraft } from './record-events';
import { contactHistory, leadHistory } from './history';
import type { Contact } from '../db/contacts';
import type { Lead } from '../db/leads/shape';
import type { LeadStatus } from '../domain/lead-status';

// The events of the leads' writes, decided from what each write answers it changed
// (src/db/leads): the procedures record them (record-events.ts).

/** The events of a new lead and its contact (leads.create), in the order they are recorded. */
export function leadCreatedEvents(created: { contact: Contact; lead: Lead }): EventDraft[] {
  return [
    { type: 'contact.created', object: created.contact },
    { type: 'lead.created', object: created.lead },
  ];
}

/**
 * The events of a lead's change (`updateLead`'s answer): `contact.updated` first when it changed
 * the contact's person fields, then the lead's (leadChangeEvents).
 */
export function leadWriteEvents(written: { before: Lead; lead: Lead; contact?: Contact }): EventDraft[] {
  const [updated, ...moves] = leadChangeEvents(written.before, written.lead);
  const lead = [{ ...updated!, history: leadHistory(written.before, written.lead) }, ...moves];
  if (!written.contact) return lead;
  // The contact as it was: its person fields are the ones the lead answered before the change.
  const { name, phones, emails, company } = written.before;
  const before = { ...written.contact, name, phones, emails, company };
  return [{ type: 'contact.updated', object: written.contact, history: contactHistory(before, written.contact) }, ...lead];
}

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
