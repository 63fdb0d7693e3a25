import type { Db } from '../knex';
import { CallValues, compiledPerShape, type HotReads } from '../hot-reads';
import { LEAD_COLUMNS, leadsWithContacts, toLead, type Lead, type LeadRow } from './shape';

// The leads' data path: reads here and in list.ts; every write of a lead, or of a contact's
// person fields, in writes.ts, create.ts and contact-changes.ts, which also keep the rows derived
// from them (counters, search copies, stored JSON) and answer what changed (events are decided
// by the procedures: src/events/lead-events.ts).

export type { Lead, LeadFields } from './shape';
export type { LeadListFilters } from './page-statement';
export { listPage, type PageForms, type LeadsPageRequest } from './list';
export { openExport, exportCopyStatement, type ExportFormat, type LeadExport } from './export';
export { insertCall, listCalls } from './calls';
export { startCounterFolding } from './counters';
export { storeLeadJson, renderLeadJson } from './lead-json';
export { updateLead, lockLead, deleteLead, unlinkClient } from './writes';
export { newLead, createLead, insertLeads, type NewLead } from './create';
export { createLeadsInBulk } from './import-batch';
// What an upsert takes and answers: `Parameters<typeof upsertLead>[2]` and its result (upsert.ts's LeadUpsert, LeadUpserted).
export { upsertLead, lockLeadByExternalId } from './upsert';
export { updateContact } from './contact-changes';

/** The hottest read: compiled once and run where `hotReads` says (src/db/hot-reads.ts says what that buys). */
const compiledGetById = compiledPerShape((db, { orgId, leadId }: { orgId: string; leadId: string }) =>
  leadsWithContacts(db, orgId).select(LEAD_COLUMNS).where('l.id', leadId).limit(1));

/** One lead: in `db` when it is a transaction, else where `hotReads` says. */
export async function getById(db: Db, hotReads: HotReads, orgId: string, leadId: string): Promise<Lead | undefined> {
  const values = new CallValues();
  const statement = compiledGetById(db, { orgId: values.of(orgId), leadId: values.of(leadId) }, values);
  const [row] = await hotReads.rows<LeadRow>(db, statement);
  return row ? toLead(row) : undefined;
}

