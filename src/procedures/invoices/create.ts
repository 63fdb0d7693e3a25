import { defineProcedure } from '../../rpc/define-procedure';
import { recordEvents } from '../../events/record-events';
import * as invoicesQueries from '../../db/invoices';
import { objectOf } from '../shared/fields';
import { referenceTo } from '../shared/references';
import { currencyField, dateField } from '../shared/format-fields';
import { itemsField } from './invoice-fields';
import { invoiceOutput, type InvoiceOutput } from './invoice.schema';

export const invoicesCreateInput = objectOf({
  clientId: referenceTo('clients'),
  currency: currencyField,
  dueDate: dateField,
  items: itemsField,
});

export const invoicesCreate = defineProcedure({
  name: 'invoices.create',
  method: 'POST',
  scope: 'invoices.create',
  exposed: true,
  description: 'Creates a DRAFT invoice for a client with its line items; the server computes the totals.',
  input: invoicesCreateInput,
  output: invoiceOutput,
  async handler({ ctx, input }): Promise<InvoiceOutput> {
    return ctx.db.transaction(async (trx) => {
      const id = await invoicesQueries.insert(trx, ctx.orgId, {
        clientId: input.clientId,
        currency: input.currency,
        dueDate: input.dueDate,
      });
      await invoicesQueries.replaceItems(trx, ctx.orgId, id, input.items);
      const invoice = (await invoicesQueries.getById(trx, ctx.orgId, id))!;
      await recordEvents(trx, ctx, [{ type: 'invoice.created', object: invoice }]);
      return invoice;
    });
  },
});
