import type { ProcedureContext } from '../../rpc/define-procedure';
import * as invoicesQueries from '../../db/invoices';
import { assertInvoiceTransition, type InvoiceAction } from '../../domain/invoice-status';
import { invoiceNotFound } from './invoice-fields';
import type { InvoiceOutput } from './invoice.schema';
import { recordEvents } from '../../events/record-events';
import type { EventType } from '../../events/event-types';

type StatusAction = Extract<InvoiceAction, 'send' | 'markPaid' | 'void'>;
type Timestamps = Omit<invoicesQueries.InvoiceStatusChange, 'status'>;

/** What each move announces, besides `invoice.updated`. */
const EVENT_OF_ACTION: Record<StatusAction, EventType> = { send: 'invoice.sent', markPaid: 'invoice.paid', void: 'invoice.voided' };

/**
 * send, markPaid and void: lock the invoice, check the move against the transition table, then
 * write the new status and its timestamp, all in one transaction so two calls cannot both pass.
 */
export function changeInvoiceStatus(
  ctx: ProcedureContext,
  invoiceId: string,
  action: StatusAction,
  timestamps: Timestamps,
): Promise<InvoiceOutput> {
  return ctx.db.transaction(async (trx) => {
    const current = await invoicesQueries.lockForUpdate(trx, ctx.orgId, invoiceId);
    if (!current) throw invoiceNotFound(invoiceId);
    const status = assertInvoiceTransition(current.status, action);
    // Unreachable: no send/markPaid/void entry of the table deletes; this narrows the type.
    if (status === 'DELETED') throw new Error(`invoice action ${action} cannot delete`);
    await invoicesQueries.changeStatus(trx, ctx.orgId, invoiceId, { status, ...timestamps });
    const invoice = (await invoicesQueries.getById(trx, ctx.orgId, invoiceId))!;
    await recordEvents(trx, ctx, [
      { type: 'invoice.updated', object: invoice },
      { type: EVENT_OF_ACTION[action], object: invoice, details: { from: current.status, to: invoice.status } },
    ]);
    return invoice;
  });
}
