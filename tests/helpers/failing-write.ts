import { z } from 'zod';
import { defineProcedure } from '../../src/rpc/define-procedure';
import { recordEvents } from '../../src/events/record-events';
import * as leads from '../../src/db/leads';

/**
 * A test-only write that records its event (and so its webhook deliveries) and then fails: the
 * rollback must take the event and the deliveries with it. Add it to a test registry.
 */
export const failsAfterEvent = defineProcedure({
  name: 'testing.failAfterEvent',
  method: 'POST',
  scope: 'leads.update',
  exposed: true,
  description: 'records lead.updated, then fails',
  input: z.strictObject({ id: z.string().max(64) }),
  output: z.unknown(),
  async handler({ ctx, input }) {
    return ctx.db.transaction(async (trx) => {
      const lead = (await leads.getById(trx, ctx.hotReads, ctx.orgId, input.id))!;
      await recordEvents(trx, ctx, [{ type: 'lead.updated', object: lead }]);
      throw new Error('boom after the event');
    });
  },
});
