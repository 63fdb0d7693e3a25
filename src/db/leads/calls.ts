import type { Db } from '../knex';
import { TABLES } from '../tables';
import { paginate } from '../paginate';
import type { PageRequest } from '../pagination';
import { newId } from '../../domain/ids';
import type { CallOutcome } from '../../domain/lead-status';

// A lead's call history (lead_calls). Logging a call writes only its row here; the lead's new
// status and next call are the lead's own update (`update` in index.ts). The calls go with their
// lead (foreign key, on delete cascade).

/** One logged call attempt on a lead, as the API returns it. */
export interface LeadCall {
  id: string;
  leadId: string;
  outcome: CallOutcome;
  notes: string | null;
  nextCallAt: Date | null;
  /** Who logged it: the actor's id (an API key's id through the API). */
  loggedBy: string;
  createdAt: Date;
}

export interface LeadCallFields {
  leadId: string;
  outcome: CallOutcome;
  notes: string | null;
  nextCallAt: Date | null;
  loggedBy: string;
}

export const CALL_COLUMNS = ['id', 'lead_id', 'outcome', 'notes', 'next_call_at', 'logged_by', 'created_at'];

interface LeadCallRow {
  id: string;
  lead_id: string;
  outcome: CallOutcome;
  notes: string | null;
  next_call_at: Date | null;
  logged_by: string;
  created_at: Date;
}

export function toLeadCall(row: LeadCallRow): LeadCall {
  return {
    id: row.id,
    leadId: row.lead_id,
    outcome: row.outcome,
    notes: row.notes,
    nextCallAt: row.next_call_at,
    loggedBy: row.logged_by,
    createdAt: row.created_at,
  };
}

export async function insertCall(db: Db, orgId: string, fields: LeadCallFields): Promise<LeadCall> {
  const [row] = await db(TABLES.leadCalls)
    .insert({
      org_id: orgId,
      id: newId('call'),
      lead_id: fields.leadId,
      outcome: fields.outcome,
      notes: fields.notes,
      next_call_at: fields.nextCallAt,
      logged_by: fields.loggedBy,
    })
    .returning(CALL_COLUMNS);
  return toLeadCall(row as LeadCallRow);
}

/** One page of a lead's calls, newest first (lead_calls_org_lead_idx is in this order). */
export async function listCalls(db: Db, orgId: string, leadId: string, page: PageRequest): Promise<{ calls: LeadCall[]; total: number }> {
  const { items, total } = await paginate({
    filtered: () => db(TABLES.leadCalls).where({ org_id: orgId, lead_id: leadId }),
    select: CALL_COLUMNS,
    orderBy: 'created_at desc, id desc',
    page,
    toItem: toLeadCall,
  });
  return { calls: items, total };
}
