import { defineProcedure } from '../../rpc/define-procedure';
import * as dashboardQueries from '../../db/dashboard';
import { invalidInput } from '../../errors/app-error';
import { leadStatsInput } from './stats-input';
import { leadStatsOutput, type LeadStatsOutput } from './lead-stats.schema';
import { assigneeCounts, callCounts, conversionRate, statusCounts } from './lead-stats';

export const dashboardGetLeadStats = defineProcedure({
  name: 'dashboard.getLeadStats',
  method: 'GET',
  scope: 'leads.read',
  exposed: true,
  description: 'Lead counts by status and assignee, calls per day and outcome, and the conversion rate over a range (default the last 30 days).',
  input: leadStatsInput,
  output: leadStatsOutput,
  async handler({ ctx, input }): Promise<LeadStatsOutput> {
    const range = { from: input.from, to: input.to };
    // One snapshot for the four counts, so the blocks agree with each other (e.g. byStatus and
    // byAssignee sum alike). Sequential: a transaction is one connection, which runs one query at a time.
    const counted = await ctx.db
      .transaction(
        async (trx) => ({
          statuses: await dashboardQueries.countLeadsByStatus(trx, ctx.orgId),
          assignees: await dashboardQueries.countLeadsByAssignee(trx, ctx.orgId),
          calls: await dashboardQueries.countCallsByDayAndOutcome(trx, ctx.orgId, range, input.timeZone),
          conversion: await dashboardQueries.countCreatedAndConverted(trx, ctx.orgId, range),
        }),
        { isolationLevel: 'repeatable read', readOnly: true },
      )
      .catch(unknownZoneToBadRequest);
    const { statuses, assignees, calls, conversion } = counted;
    return {
      range: { from: input.from, to: input.to, timeZone: input.timeZone },
      byStatus: statusCounts(statuses),
      byAssignee: assigneeCounts(assignees),
      calls: callCounts(calls, input),
      conversion: { ...conversion, rate: conversionRate(conversion.created, conversion.converted) },
    };
  },
});

/** A zone Intl knows but the database's time zone data does not (22023) is the caller's 400, not a 500. */
function unknownZoneToBadRequest(err: unknown): never {
  if ((err as { code?: unknown } | null)?.code === '22023' && /time zone/i.test(String((err as Error).message))) {
    throw invalidInput([{ path: ['timeZone'], message: 'expected an IANA time zone name the database knows, e.g. Europe/London or UTC' }]);
  }
  throw err;
}
