import type { HistoryDraft } from './record-events';
import { HISTORY_FIELDS } from '../db/history';
import type { Contact } from '../db/contacts';
import type { Client } from '../db/clients';
import type { Lead } from '../db/leads/shape';

// The change history of leads, contacts and clients (record_history, issue 50): each change,
// delete and restore of such a record makes one entry, decided here from what the write answers
// (the record before and after, as the events are), carried by the write's event
// (EventDraft.history) and written in the same statement. A creation's entry is not decided here:
// it is the `<noun>.created` event itself (src/db/history reads it there), so a create writes no
// history. An entry names the fields as the API names them (HISTORY_FIELDS), each `{from, to}` as
// the API answers them (times as ISO 8601 text).

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
 * The entry of a record's write: its change (the fields that moved; none when nothing did: no
 * entry), its delete (`after` null: every field set, `to` null, at the statement's time), or its
 * restore from the trash (`before` null: every field set, `from` null, at the restore's time: the
 * record keeps the `updatedAt` it was deleted with).
 */
function entry<T extends { id: string; updatedAt: Date }>(
  resource: HistoryDraft['resource'], fields: readonly (keyof T & string)[], before: T | null, after: T | null,
): HistoryDraft[] {
  const record = (after ?? before)!;
  const changes = changed(fields, before, after);
  if (before === null) return [{ resource, recordId: record.id, changedAt: null, action: 'restored', changes }];
  if (after === null) return [{ resource, recordId: record.id, changedAt: null, action: 'deleted', changes }];
  if (Object.keys(changes).length === 0) return [];
  return [{ resource, recordId: record.id, changedAt: after.updatedAt, action: 'updated', changes }];
}

export const leadHistory = (before: Lead | null, after: Lead | null): HistoryDraft[] => entry('lead', HISTORY_FIELDS.lead, before, after);

export const contactHistory = (before: Contact | null, after: Contact | null): HistoryDraft[] =>
  entry('contact', HISTORY_FIELDS.contact, before, after);

export const clientHistory = (before: Client | null, after: Client | null): HistoryDraft[] => entry('client', HISTORY_FIELDS.client, before, after);
