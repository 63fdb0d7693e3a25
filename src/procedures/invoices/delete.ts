import type { z } from 'zod';
import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as invoicesQueries from '../../db/invoices';
import { assertInvoiceTransition } from '../../domain/invoice-status';
import { idOf, objectOf } from '../shared/fields';
import { invoiceNotFound } from './invoice-fields';
import { invoiceDeletedOutput } from './invoice.schema';

export const invoicesDelete = defineProcedure({
  name: 'invoices.delete',
  method: 'POST',
  scope: 'invoices.delete',
  exposed: true,
  description: 'Deletes a DRAFT invoice and its line items; a sent invoice is voided instead.',
  input: objectOf({ id: idOf('inv') }),
  output: invoiceDeletedOutput,
  async handler({ ctx, input }): Promise<z.input<typeof invoiceDeletedOutput>> {
    return ctx.db.transaction(async (trx) => {
      const current = await invoicesQueries.lockForUpdate(trx, ctx.orgId, input.id);
      if (!current) throw invoiceNotFound(input.id);
      assertInvoiceTransition(current.status, 'delete');
      const invoice = (await invoicesQueries.getById(trx, ctx.orgId, input.id))!;
      await invoicesQueries.remove(trx, ctx.orgId, input.id, ctx.actor);
      await recordEvents(trx, ctx, [{ type: 'invoice.deleted', object: invoice }]);
      return { id: input.id, deleted: true as const };
    });
  },
});
