import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import type { NewEvent } from '../events';
import { createLeadUnlessHeld } from './create';
import { updateLead, type LeadChange, type LeadWrite } from './writes';
import { LEAD_COLUMNS, leadsWithContacts, toLead, type Lead, type LeadRow } from './shape';

// A lead by its external id (leads.upsert, PUT /api/v1/leads/external/{externalId}, imports in
// upsert mode): created when no lead of the workspace holds the id, else changed. The create is
// one statement that writes nothing when the id is held (create.ts, `createLeadUnlessHeld`: the
// unique index of external ids decides, so of many racing upserts of one id exactly one creates);
// the change is `updateLead`'s, in a transaction, on the lead found and locked by its id.

/** What an upsert does with the lead holding `create.lead.externalId`, or without one. */
export interface LeadUpsert {
  /**
   * The lead to create (newLead's, with its external id) and the events of its creation
   * (contact.created, lead.created), written in one statement with it. Absent: the caller wants
   * only the lead that holds the id changed (it named a version of it: expectedUpdatedAt, If-Match).
   */
  create?: { lead: Lead; events: readonly NewEvent[] };
  /** The external id; `create.lead.externalId` when a create is given. */
  externalId: string;
  /** What changes on the lead holding the id (as leads.update's change; absent fields stay). */
  change: LeadChange;
  /** Sees the held lead as it was, locked; throws to refuse the change (nothing is written). */
  check?: (before: Lead) => void;
  /** Records the change's events in its transaction (from leadWriteEvents). */
  recordChange?: (trx: Knex.Transaction, written: LeadWrite) => Promise<void>;
}

/** The lead created, or the change of the lead that held the id; undefined when none held it and no create was given. */
export type LeadUpserted = { created: true; lead: Lead } | { created: false; write: LeadWrite };

/**
 * A lead deleted between the create that found its id held and the change that looks for it is
 * gone: the create is tried again. Each round needs a concurrent delete of that very lead, so a
 * few rounds only fail under a storm of create-and-delete of one id (then 409, retry).
 */
const ROUNDS = 3;

export async function upsertLead(db: Db, orgId: string, upsert: LeadUpsert): Promise<LeadUpserted | undefined> {
  const { create } = upsert;
  if (create && create.lead.externalId !== upsert.externalId) throw new Error('upsertLead: the lead to create holds another external id');
  for (let round = 0; round < ROUNDS; round++) {
    if (create && (await createLeadUnlessHeld(db, orgId, create.lead, create.events))) return { created: true, lead: create.lead };
    const write = await db.transaction(async (trx) => {
      const leadId = await lockHolder(trx, orgId, upsert.externalId);
      if (leadId === undefined) return undefined;
      const written = (await updateLead(trx, orgId, leadId, upsert.change, upsert.check))!;
      await upsert.recordChange?.(trx, written);
      return written;
    });
    if (write) return { created: false, write };
    if (!create) return undefined;
  }
  // Not an AppError: src/errors turns a serialization failure into "changed by another request; retry".
  throw Object.assign(new Error('upsertLead: the lead holding the external id was deleted each time it was found'), { code: '40001' });
}

/** `lockLead` by external id: the lead holding it, locked for the transaction (a REST If-Match compares its version). */
export async function lockLeadByExternalId(trx: Knex.Transaction, orgId: string, externalId: string): Promise<Lead | undefined> {
  const row: LeadRow | undefined = await leadsWithContacts(trx, orgId).select(LEAD_COLUMNS).where('l.external_id', externalId).forUpdate('l').first();
  return row && toLead(row);
}

/**
 * The id of the lead holding the external id, locked for the transaction (a concurrent change of
 * its external id waits; one that committed first is seen, and the lead no longer matches).
 */
async function lockHolder(trx: Knex.Transaction, orgId: string, externalId: string): Promise<string | undefined> {
  const row: { id: string } | undefined = await trx(TABLES.leads).select('id').where({ org_id: orgId, external_id: externalId }).forUpdate().first();
  return row?.id;
}
