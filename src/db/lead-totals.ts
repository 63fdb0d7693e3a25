import type { Knex } from 'knex';
import type { Db } from './knex';
import type { LeadStatus } from '../domain/lead-status';
import { prepared } from './prepared-statements';
import { TABLES } from './tables';

export interface CountedFilters {
  status?: LeadStatus;
  /** A member id, or 'unassigned'. */
  assignedToId?: string;
}

/**
 * The exact number of the workspace's leads matching status/assignee filters, summed from the
 * counters (a few hundred rows at most) instead of counting every lead. Exact because the
 * counters change in the same transaction as the leads they count. As a query (its sum is null
 * when no counter row matches), so a page can read its total in its own statement.
 */
export function countersSumQuery(db: Db, orgId: string, filters: CountedFilters): Knex.QueryBuilder {
  const query = db(TABLES.leadCounts).where('org_id', orgId);
  if (filters.status) query.where('status', filters.status);
  if (filters.assignedToId) query.where('assignee_key', filters.assignedToId === 'unassigned' ? '' : filters.assignedToId);
  return query.sum({ n: 'n' });
}

export async function countLeadsByCounters(db: Db, orgId: string, filters: CountedFilters): Promise<number> {
  const rows = (await prepared(db, countersSumQuery(db, orgId, filters))) as { n: string | null }[];
  return Number(rows[0]?.n ?? 0);
}
