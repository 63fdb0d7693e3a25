import type { HistoryDraft } from './record-events';
import type { Contact } from '../db/contacts';
import type { Client } from '../db/clients';
import type { Lead } from '../db/leads/shape';

// The change history of leads, contacts and clients (record_history, issue 50): each write of such
// a record makes one entry, decided here from what the write answers (the record before and after,
// as the events are), carried by the write's event (EventDraft.history) and written in the same
// statement. An entry names the fields as the API names them, each `{from, to}` as the API answers
// them (times as ISO 8601 text). Fields the API derives (primaryPhone, primaryEmail) and the
// record's own times are not entries' fields: the entry has its own time.

/** The fields of each resource an entry follows, as the API names them. */
const LEAD_FIELDS = ['name', 'phones', 'emails', 'company', 'status', 'source', 'notes', 'nextCallAt', 'assignedToId', 'clientId', 'externalId'] as const;
const CONTACT_FIELDS = ['name', 'phones', 'emails', 'company', 'externalId'] as const;
const CLIENT_FIELDS = ['name', 'contactId', 'company', 'email', 'phone', 'notes', 'externalId'] as const;

type Changes = HistoryDraft['changes'];

/** A value as JSON holds it: a Date as its ISO 8601 text. */
function plain(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value ?? null;
}

function changed<T extends object>(fields: readonly (keyof T & string)[], before: T | null, after: T | null): Changes {
  const changes: Changes = {};
  for (const field of fields) {
    const from = before === null ? null : plain(before[field]);
    const to = after === null ? null : plain(after[field]);
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
  }
  return changes;
}

/**
 * The entry of a record's write: its creation (every field set, `from` null), its change (the
 * fields that moved; none when nothing did: no entry), or its delete (every field set, `to` null).
 */
function entry<T extends { id: string; updatedAt: Date }>(
  resource: HistoryDraft['resource'], fields: readonly (keyof T & string)[], personId: string | null, before: T | null, after: T | null,
): HistoryDraft[] {
  const record = (after ?? before)!;
  const changes = changed(fields, before, after);
  const action = before === null ? 'created' : after === null ? 'deleted' : 'updated';
  if (action === 'updated' && Object.keys(changes).length === 0) return [];
  return [{ resource, recordId: record.id, personId, changedAt: after === null ? null : after.updatedAt, action, changes }];
}

/**
 * The entry of a record's restore from the trash: every field set, as a creation's, and the
 * restore's own time (the record keeps the `updatedAt` it was deleted with).
 */
export const restoredHistory = (entries: HistoryDraft[]): HistoryDraft[] =>
  entries.map((e) => ({ ...e, action: 'restored', changedAt: null }));

export const leadHistory = (before: Lead | null, after: Lead | null): HistoryDraft[] =>
  entry('lead', LEAD_FIELDS, (after ?? before)!.contactId, before, after);

export const contactHistory = (before: Contact | null, after: Contact | null): HistoryDraft[] =>
  entry('contact', CONTACT_FIELDS, (after ?? before)!.id, before, after);

/** A client's person is its linked contact (the one it links now, else the one it linked). */
export const clientHistory = (before: Client | null, after: Client | null): HistoryDraft[] =>
  entry('client', CLIENT_FIELDS, after?.contactId ?? before?.contactId ?? null, before, after);
