import type { Db } from '../knex';
import { TABLES } from '../tables';
import type { CallOutcome, LeadStatus } from '../../domain/lead-status';

/** A half-open interval [from, to) of instants. */
export interface TimeRange {
  from: Date;
  to: Date;
}

// Exact counts, each one grouped query on an index that starts with org_id, so a dashboard can
// refresh them every few seconds without scanning other workspaces' rows.

/** Current number of leads per status (statuses without leads are absent). Index: leads_org_status_order_idx. */
export async function countLeadsByStatus(db: Db, orgId: string): Promise<{ status: LeadStatus; count: number }[]> {
  const rows: { status: LeadStatus; n: string }[] = await db(TABLES.leads)
    .select('status')
    .count({ n: '*' })
    .where({ org_id: orgId })
    .groupBy('status');
  return rows.map((r) => ({ status: r.status, count: Number(r.n) }));
}

/**
 * Current number of leads per assignee, null for unassigned, most first then by id (unassigned
 * last among equals). Index: leads_org_assignee_order_idx.
 */
export async function countLeadsByAssignee(db: Db, orgId: string): Promise<{ assignedToId: string | null; count: number }[]> {
  const rows: { assigned_to_id: string | null; n: string }[] = await db(TABLES.leads)
    .select('assigned_to_id')
    .count({ n: '*' })
    .where({ org_id: orgId })
    .groupBy('assigned_to_id')
    .orderByRaw('count(*) desc, assigned_to_id asc nulls last');
  return rows.map((r) => ({ assignedToId: r.assigned_to_id, count: Number(r.n) }));
}

/**
 * Calls logged in the range, counted per calendar day in `timeZone` (YYYY-MM-DD) and outcome;
 * day/outcome pairs without calls are absent. Index: lead_calls_org_created_idx.
 */
export async function countCallsByDayAndOutcome(
  db: Db,
  orgId: string,
  range: TimeRange,
  timeZone: string,
): Promise<{ day: string; outcome: CallOutcome; count: number }[]> {
  const rows: { day: string; outcome: CallOutcome; n: string }[] = await db(TABLES.leadCalls)
    .select(db.raw("to_char((created_at at time zone ?)::date, 'YYYY-MM-DD') as day", [timeZone]), 'outcome')
    .count({ n: '*' })
    .where('org_id', orgId)
    .andWhere('created_at', '>=', range.from)
    .andWhere('created_at', '<', range.to)
    .groupByRaw('1, 2');
  return rows.map((r) => ({ day: r.day, outcome: r.outcome, count: Number(r.n) }));
}

/**
 * Leads created in the range and leads converted in the range (not necessarily the same leads),
 * in one round trip, each count a range on its own (org_id, timestamp) index.
 */
export async function countCreatedAndConverted(db: Db, orgId: string, range: TimeRange): Promise<{ created: number; converted: number }> {
  const counted = (column: 'created_at' | 'converted_at') =>
    db(TABLES.leads).count('*').where('org_id', orgId).andWhere(column, '>=', range.from).andWhere(column, '<', range.to);
  const row: { created: string; converted: string } = await db
    .select({ created: counted('created_at'), converted: counted('converted_at') })
    .first();
  return { created: Number(row.created), converted: Number(row.converted) };
}
