import { CALL_OUTCOMES, LEAD_STATUSES, type CallOutcome, type LeadStatus } from '../../domain/lead-status';
import type * as dashboardQueries from '../../db/dashboard';
import { daysOfRange } from './calendar';

type Rows<F extends (...args: never[]) => Promise<unknown[]>> = Awaited<ReturnType<F>>;

export interface CallDay {
  day: string;
  total: number;
  byOutcome: Record<CallOutcome, number>;
}

function zeros<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
}

/** Every status, zeros included. */
export function statusCounts(rows: Rows<typeof dashboardQueries.countLeadsByStatus>): Record<LeadStatus, number> {
  const counts = zeros(LEAD_STATUSES);
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

/** The rows as counted, plus an unassigned bucket of 0 when no lead is unassigned (it sorts last). */
export function assigneeCounts(rows: Rows<typeof dashboardQueries.countLeadsByAssignee>) {
  return rows.some((r) => r.assignedToId === null) ? rows : [...rows, { assignedToId: null, count: 0 }];
}

/** Totals by outcome and one entry per day of the range, zeros included. */
export function callCounts(rows: Rows<typeof dashboardQueries.countCallsByDayAndOutcome>, range: { from: Date; to: Date; timeZone: string }) {
  const byOutcome = zeros(CALL_OUTCOMES);
  const perDay = new Map<string, CallDay>(
    daysOfRange(range.from, range.to, range.timeZone).map((day) => [day, { day, total: 0, byOutcome: zeros(CALL_OUTCOMES) }]),
  );
  let total = 0;
  for (const row of rows) {
    total += row.count;
    byOutcome[row.outcome] += row.count;
    const day = perDay.get(row.day);
    // Every call in [from, to) falls on a day of the range, in the database's and in Intl's calendar alike.
    if (!day) throw new Error(`call day ${row.day} is outside the range's days`);
    day.total += row.count;
    day.byOutcome[row.outcome] += row.count;
  }
  return { total, byOutcome, perDay: [...perDay.values()] };
}

/** Converted over created in the range, to 4 decimals; 0 when nothing was created. Above 1 when older leads converted. */
export function conversionRate(created: number, converted: number): number {
  return created === 0 ? 0 : Math.round((converted / created) * 10_000) / 10_000;
}
