import type { Knex } from 'knex';
import { TABLES } from '../tables';
import { toContact, type Contact, type ContactRow } from '../contacts';
import { newId } from '../../domain/ids';
import { addToCounts } from '../leads/counters';
import { erasePersonalFields, leadIdsNamingContact } from '../events/personal-data';
import type { LeadStatus } from '../../domain/lead-status';
import { nationalDigits } from '../../domain/phone';
import * as history from '../history';
import { trashedLeadIdsOf } from '../trash';

// contacts.erase: forgets a person in the caller's transaction (docs/personal-data.md says what
// each table keeps and why). Every statement names the workspace, so on Citus each runs on the
// workspace's one shard group, and each finds its rows by an index (or, for the stored answers
// and import errors, a scan of the workspace's own rows bounded by their retention).
// A table that comes to hold a person's data adds one step to ERASE_STEPS.

/** Who is erased: the contact, its leads now and any deleted before (found through their events), and its strings. */
export interface ErasedPerson {
  contactId: string;
  /**
   * Every lead id the person's data was held under, today's leads first. No write changes a
   * lead's contact, so a lead that ever named the contact is the person's, and its id may key deletes.
   */
  leadIds: string[];
  /** The person's name, phones (E.164) and emails as stored: what a stored row as sent may hold. */
  strings: string[];
  /** Each phone's national significant digits: what a row holds of a phone in any format, its non-digits dropped. */
  phoneDigits: string[];
}

type EraseStep = (trx: Knex.Transaction, orgId: string, person: ErasedPerson) => Promise<unknown>;

const ERASE_STEPS: EraseStep[] = [
  // Tasks and clients keep their own fields and lose the link.
  (trx, orgId, p) => trx(TABLES.tasks).where('org_id', orgId).whereIn('lead_id', p.leadIds).update({ lead_id: null }),
  (trx, orgId, p) => trx(TABLES.clients).where({ org_id: orgId, contact_id: p.contactId }).update({ contact_id: null }),
  // The leads with their calls, stored JSON and search copies (columns of the lead row).
  (trx, orgId, p) => trx(TABLES.leadCalls).where('org_id', orgId).whereIn('lead_id', p.leadIds).delete(),
  (trx, orgId, p) => trx(TABLES.leadJson).where('org_id', orgId).whereIn('lead_id', p.leadIds).delete(),
  deleteLeadsAndCount,
  (trx, orgId, p) => trx(TABLES.contacts).where({ org_id: orgId, id: p.contactId }).delete(),
  // The trash: the person's deleted contact and leads go (with a lead's calls and the person's
  // fields it kept); a deleted client keeps its own fields and loses the link, in the row a
  // restore would put back too.
  (trx, orgId, p) => trx(TABLES.trash).where({ org_id: orgId, contact_id: p.contactId }).whereIn('resource', ['contact', 'lead']).delete(),
  (trx, orgId, p) => trx(TABLES.trash).where({ org_id: orgId, contact_id: p.contactId, resource: 'client' })
    .update({ contact_id: null, rows: trx.raw(`jsonb_set(rows, '{row,contact_id}', 'null'::jsonb)`) }),
  // The change history: the contact's and its leads' entries go; a linked client's stay (its own fields).
  (trx, orgId, p) => history.deleteOfPerson(trx, orgId, p),
  // Events stay as records that something happened, without the personal fields; their
  // deliveries' response excerpts go.
  (trx, orgId, p) => erasePersonalFields(trx, orgId, p.contactId),
  // Stored idempotent answers naming the contact or a lead (kept 24 hours): deleted, so a retry
  // under the key runs afresh. A scan of the workspace's live keys (the primary key's prefix).
  (trx, orgId, p) => trx(TABLES.idempotencyKeys).where('org_id', orgId)
    .whereRaw('response_body::text like any(?::text[])', [[p.contactId, ...p.leadIds].map((id) => `%"${id}"%`)]).delete(),
  // Failed import rows as sent that hold one of the person's strings (kept IMPORTS_RETENTION_DAYS,
  // at most MAX_ERRORS_KEPT an import): a scan of the workspace's import errors.
  (trx, orgId, p) => trx(TABLES.importErrors).where('org_id', orgId)
    .where((q) => q.whereRaw('row_text ilike any(?::text[])', [p.strings.map((s) => `%${escapeLike(s)}%`)])
      .orWhereRaw(`regexp_replace(row_text, '\\D', '', 'g') like any(?::text[])`, [p.phoneDigits.map((d) => `%${d}%`)]))
    .delete(),
];

/** Deletes the contact's leads and takes them off the counters. */
async function deleteLeadsAndCount(trx: Knex.Transaction, orgId: string, person: ErasedPerson): Promise<void> {
  const deleted: { status: LeadStatus; assigned_to_id: string | null }[] = await trx(TABLES.leads)
    .where({ org_id: orgId, contact_id: person.contactId }).delete().returning(['status', 'assigned_to_id']);
  await addToCounts(trx, orgId, deleted.map((l) => ({ status: l.status, assignedToId: l.assigned_to_id, n: -1 })));
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const CONTACT_COLUMNS = ['id', 'name', 'phones', 'emails', 'company', 'created_at', 'updated_at', 'external_id'];

/** The contact, live or in the trash (a deleted person is erased too), locked; undefined when neither. */
async function lockContact(trx: Knex.Transaction, orgId: string, contactId: string): Promise<ContactRow | undefined> {
  const live: ContactRow | undefined = await trx(TABLES.contacts).select(CONTACT_COLUMNS)
    .where({ org_id: orgId, id: contactId }).forUpdate().first();
  if (live) return live;
  // The trash keeps the row as stored; read back through the table's row type, as a restore does.
  const { rows: [trashed] } = await trx.raw<{ rows: ContactRow[] }>(
    `select ${CONTACT_COLUMNS.map((c) => `(r).${c}`).join(', ')}
     from (select jsonb_populate_record(null::${TABLES.contacts}, rows->'row') as r from ${TABLES.trash}
           where org_id = ? and resource = 'contact' and id = ? for update) t`,
    [orgId, contactId],
  );
  return trashed;
}

/**
 * Erases the contact and everything that holds its person (ERASE_STEPS), then writes the audit
 * row: who, when, which ids, nothing personal. Answers the contact as it was (for the caller's
 * event, blanked there); undefined when the workspace has no such contact.
 */
export async function eraseContact(
  trx: Knex.Transaction, orgId: string, contactId: string, audit: { actor: { kind: string; id: string }; requestId: string | null },
): Promise<{ erasureId: string; contact: Contact; leadIds: string[] } | undefined> {
  const row = await lockContact(trx, orgId, contactId);
  if (!row) return undefined;
  const contact = toContact(row);
  const leads: { id: string }[] = await trx(TABLES.leads).select('id').where({ org_id: orgId, contact_id: contactId }).orderBy('id').forUpdate();
  const trashed = await trashedLeadIdsOf(trx, orgId, contactId);
  const earlier = await leadIdsNamingContact(trx, orgId, contactId);
  const current = leads.map((l) => l.id);
  const leadIds = [...new Set([...current, ...[...trashed, ...earlier].sort()])];
  const person: ErasedPerson = {
    contactId, leadIds, strings: [contact.name, ...contact.phones, ...contact.emails], phoneDigits: contact.phones.map(nationalDigits),
  };
  for (const step of ERASE_STEPS) await step(trx, orgId, person);
  const erasureId = newId('era');
  await trx(TABLES.erasures).insert({
    org_id: orgId, id: erasureId, contact_id: contactId, lead_ids: leadIds,
    actor_kind: audit.actor.kind, actor_id: audit.actor.id, request_id: audit.requestId,
  });
  return { erasureId, contact, leadIds };
}
