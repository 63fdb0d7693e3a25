import type { Db } from '../knex';
import { CallValues, compiledPerShape } from '../compiled-statements';
import { LEAD_COLUMNS, leadsWithContacts, toLead, type Lead, type LeadRow } from './shape';

// The leads' data path: reads here and in list.ts; every write of a lead, or of a contact's
// person fields, in writes.ts, which also keeps the rows derived from them (counters, search
// copies, stored JSON).

export type { Lead, LeadFields } from './shape';
export type { LeadListFilters, ListPosition } from './page-statement';
export type { LeadSortKey } from './cursor';
export { listLeadsPage, renderLeadsPageJson, list, listAsJson, type LeadsPageRequest, type CursorPage } from './list';
export { insertCall, listCalls, type LeadCall, type LeadCallFields } from './calls';
export { startCounterFolding } from './counters';
export { storeLeadJson, renderLeadJson } from './lead-json';
export { createLead, updateLead, lockLead, deleteLead, updateContact, unlinkClient, unassignMember, insertLeads, type LeadChange, type LeadWrite, type NewLead } from './writes';

/** The hottest read: compiled once and run on the hot reads' pool (src/db/compiled-statements.ts says what that buys). */
const compiledGetById = compiledPerShape((db, { orgId, leadId }: { orgId: string; leadId: string }) =>
  leadsWithContacts(db, orgId).select(LEAD_COLUMNS).where('l.id', leadId).limit(1));

export async function getById(db: Db, orgId: string, leadId: string): Promise<Lead | undefined> {
  const values = new CallValues();
  const [row] = await compiledGetById(db, { orgId: values.of(orgId), leadId: values.of(leadId) }, values).rows<LeadRow>();
  return row ? toLead(row) : undefined;
}

