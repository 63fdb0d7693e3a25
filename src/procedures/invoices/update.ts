import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as invoicesQueries from '../../db/invoices';
import { assertInvoiceTransition } from '../../domain/invoice-status';
import { idOf, objectOf } from '../shared/fields';
import { referenceTo } from '../shared/references';
import { assertUnchangedSince, expectedUpdatedAtField } from '../shared/concurrency';
import { currencyField, dateField } from '../shared/format-fields';
import { invoiceNotFound, itemsField } from './invoice-fields';
import { invoiceOutput, type InvoiceOutput } from './invoice.schema';

/** Absent means unchanged; `items`, when given, replaces every line. */
export const invoicesUpdateInput = objectOf({
  id: idOf('inv'),
  clientId: referenceTo('clients').optional(),
  currency: currencyField.optional(),
  dueDate: dateField.optional(),
  items: itemsField.optional(),
  expectedUpdatedAt: expectedUpdatedAtField,
});

export const invoicesUpdate = defineProcedure({
  name: 'invoices.update',
  method: 'POST',
  scope: 'invoices.update',
  exposed: true,
  description: 'Changes a DRAFT invoice: client, currency, due date, or all its line items at once.',
  input: invoicesUpdateInput,
  output: invoiceOutput,
  async handler({ ctx, input }): Promise<InvoiceOutput> {
    return ctx.db.transaction(async (trx) => {
      const current = await invoicesQueries.lockForUpdate(trx, ctx.orgId, input.id);
      if (!current) throw invoiceNotFound(input.id);
      assertInvoiceTransition(current.status, 'update');
      assertUnchangedSince('invoice', current.updatedAt, input.expectedUpdatedAt);
      await invoicesQueries.update(trx, ctx.orgId, input.id, {
        clientId: input.clientId,
        currency: input.currency,
        dueDate: input.dueDate,
      });
      if (input.items) await invoicesQueries.replaceItems(trx, ctx.orgId, input.id, input.items);
      const invoice = (await invoicesQueries.getById(trx, ctx.orgId, input.id))!;
      await recordEvents(trx, ctx, [{ type: 'invoice.updated', object: invoice }]);
      return invoice;
    });
  },
});
