import type { ProcedureContext } from '../../rpc/define-procedure';
import * as invoicesQueries from '../../db/queries/invoices.queries';
import { assertInvoiceTransition, type InvoiceAction } from '../../domain/invoice-status';
import { invoiceNotFound } from './invoice-fields';

type StatusAction = Extract<InvoiceAction, 'send' | 'markPaid' | 'void'>;
type Timestamps = Omit<invoicesQueries.InvoiceStatusChange, 'status'>;

/**
 * send, markPaid and void: lock the invoice, check the move against the transition table, then
 * write the new status and its timestamp, all in one transaction so two calls cannot both pass.
 */
export function changeInvoiceStatus(
  ctx: ProcedureContext,
  invoiceId: string,
  action: StatusAction,
  timestamps: Timestamps,
): Promise<invoicesQueries.Invoice> {
  return ctx.db.transaction(async (trx) => {
    const current = await invoicesQueries.lockForUpdate(trx, ctx.orgId, invoiceId);
    if (!current) throw invoiceNotFound(invoiceId);
    const status = assertInvoiceTransition(current.status, action);
    // Unreachable: no send/markPaid/void entry of the table deletes; this narrows the type.
    if (status === 'DELETED') throw new Error(`invoice action ${action} cannot delete`);
    await invoicesQueries.changeStatus(trx, ctx.orgId, invoiceId, { status, ...timestamps });
    return (await invoicesQueries.getById(trx, ctx.orgId, invoiceId))!;
  });
}
