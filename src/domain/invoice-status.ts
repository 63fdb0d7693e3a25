import { AppError } from '../errors/app-error';

export const INVOICE_STATUSES = ['DRAFT', 'SENT', 'PAID', 'VOID'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Every procedure that changes or removes an invoice; each one is checked against the table. */
export const INVOICE_ACTIONS = ['update', 'send', 'markPaid', 'void', 'delete'] as const;
export type InvoiceAction = (typeof INVOICE_ACTIONS)[number];

/** What an allowed action leaves: a status, or no invoice at all. */
export type InvoiceOutcome = InvoiceStatus | 'DELETED';

/**
 * The invoice transition rules, in one place (docs/errors-and-limits.md, "Invoice status transitions"): an action
 * absent from a status's row is refused. Only a DRAFT can be edited or deleted; PAID and VOID
 * are final (a paid invoice is corrected by a credit note, not by voiding it).
 */
export const INVOICE_TRANSITIONS: Readonly<Record<InvoiceStatus, Readonly<Partial<Record<InvoiceAction, InvoiceOutcome>>>>> = {
  DRAFT: { update: 'DRAFT', send: 'SENT', void: 'VOID', delete: 'DELETED' },
  SENT: { markPaid: 'PAID', void: 'VOID' },
  PAID: {},
  VOID: {},
};

/** What the action does, for messages: the status it moves to, or what it does to a DRAFT. */
const ACTION_WORDS: Record<InvoiceAction, { to?: InvoiceStatus; verb: string }> = {
  update: { verb: 'changed' },
  send: { to: 'SENT', verb: 'sent' },
  markPaid: { to: 'PAID', verb: 'marked paid' },
  void: { to: 'VOID', verb: 'voided' },
  delete: { verb: 'deleted' },
};

/** The statuses from which the action is allowed, read off the table. */
export function statusesAllowing(action: InvoiceAction): InvoiceStatus[] {
  return INVOICE_STATUSES.filter((status) => INVOICE_TRANSITIONS[status][action] !== undefined);
}

/**
 * Answers what the action leads to from `from`, or throws 409 CONFLICT naming the invoice's
 * status and the status the action would move it to.
 */
export function assertInvoiceTransition(from: InvoiceStatus, action: InvoiceAction): InvoiceOutcome {
  const outcome = INVOICE_TRANSITIONS[from][action];
  if (outcome !== undefined) return outcome;
  const { to, verb } = ACTION_WORDS[action];
  const allowed = statusesAllowing(action).join(' or ');
  const refused = to ? `Cannot move an invoice from ${from} to ${to}` : `Cannot ${action} an invoice that is ${from}`;
  const already = to === from ? `: it is already ${from}` : '';
  throw new AppError('CONFLICT', `${refused}${already}; only a ${allowed} invoice can be ${verb}`);
}
