import type { Db } from './knex';
import type { LeadStatus } from '../domain/lead-status';
import { prepared } from './prepared-statements';

/** Kept by triggers on leads (migration 20261123150000_create_lead_counts); '' is "unassigned". */
const LEAD_COUNTS = 'lead_counts';

export interface CountedFilters {
  status?: LeadStatus;
  /** A member id, or 'unassigned'. */
  assignedToId?: string;
}

/**
 * The exact number of the workspace's leads matching status/assignee filters, summed from the
 * counters (a few hundred rows at most) instead of counting every lead. Exact because the
 * counters change in the same transaction as the leads they count.
 */
export async function countLeadsByCounters(db: Db, orgId: string, filters: CountedFilters): Promise<number> {
  const query = db(LEAD_COUNTS).where('org_id', orgId);
  if (filters.status) query.where('status', filters.status);
  if (filters.assignedToId) query.where('assignee_key', filters.assignedToId === 'unassigned' ? '' : filters.assignedToId);
  const rows = (await prepared(db, query.sum({ n: 'n' }))) as { n: string | null }[];
  return Number(rows[0]?.n ?? 0);
}
