import { defineSubscription } from '../../rpc/define-subscription';
import { leadStatsInput } from './stats-input';
import { leadStatsOutput } from './lead-stats.schema';
import { dashboardGetLeadStats } from './get-lead-stats';

export const dashboardOnLeadStats = defineSubscription({
  name: 'dashboard.onLeadStats',
  scope: dashboardGetLeadStats.scope,
  exposed: true,
  description: 'dashboard.getLeadStats now, then again after each change that moves it: at most once a second per workspace, however many watch.',
  input: leadStatsInput,
  output: leadStatsOutput,
  tracked: false,
  async open({ ctx, input, sink }) {
    const compute = () => dashboardGetLeadStats.handler({ ctx: { ...ctx, scopes: ctx.scopes(), effects: { recordedEvents: false }, call: { procedure: 'dashboard.getLeadStats', requestId: null } }, input });
    const first = await compute();
    sink.next(first);
    let last = JSON.stringify(first);
    // Readers of the same range share one computation per refresh.
    const key = `${input.from.toISOString()} ${input.to.toISOString()} ${input.timeZone}`;
    return ctx.live.refresh.watch(ctx.orgId, key, compute, {
      deliver(stats) {
        const json = JSON.stringify(stats);
        if (json === last) return;
        last = json;
        sink.next(stats);
      },
    });
  },
});
