import {
  INVOICE_ACTIONS, INVOICE_STATUSES, assertInvoiceTransition, statusesAllowing, type InvoiceAction, type InvoiceOutcome, type InvoiceStatus,
} from '../../src/domain/invoice-status';
import { AppError } from '../../src/errors/app-error';

/** The expected rules, written out independently of the table under test. */
const EXPECTED: Record<InvoiceStatus, Record<InvoiceAction, InvoiceOutcome | 'refused'>> = {
  DRAFT: { update: 'DRAFT', send: 'SENT', markPaid: 'refused', void: 'VOID', delete: 'DELETED' },
  SENT: { update: 'refused', send: 'refused', markPaid: 'PAID', void: 'VOID', delete: 'refused' },
  PAID: { update: 'refused', send: 'refused', markPaid: 'refused', void: 'refused', delete: 'refused' },
  VOID: { update: 'refused', send: 'refused', markPaid: 'refused', void: 'refused', delete: 'refused' },
};

const PAIRS = INVOICE_STATUSES.flatMap((from) => INVOICE_ACTIONS.map((action) => [from, action, EXPECTED[from][action]] as const));

function refusal(from: InvoiceStatus, action: InvoiceAction): AppError {
  try {
    assertInvoiceTransition(from, action);
  } catch (err) {
    return err as AppError;
  }
  throw new Error(`${action} from ${from} was allowed`);
}

describe('assertInvoiceTransition', () => {
  it('covers all 20 (status, action) pairs', () => {
    expect(PAIRS).toHaveLength(20);
  });

  it.each(PAIRS.filter(([, , outcome]) => outcome !== 'refused'))('allows %s -> %s, leading to %s', (from, action, outcome) => {
    expect(assertInvoiceTransition(from, action)).toBe(outcome);
  });

  it.each(PAIRS.filter(([, , outcome]) => outcome === 'refused'))('refuses %s -> %s with 409 CONFLICT', (from, action) => {
    const err = refusal(from, action);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toContain(from);
  });

  it.each([
    ['SENT', 'send', 'Cannot move an invoice from SENT to SENT: it is already SENT; only a DRAFT invoice can be sent'],
    ['PAID', 'send', 'Cannot move an invoice from PAID to SENT; only a DRAFT invoice can be sent'],
    ['DRAFT', 'markPaid', 'Cannot move an invoice from DRAFT to PAID; only a SENT invoice can be marked paid'],
    ['PAID', 'void', 'Cannot move an invoice from PAID to VOID; only a DRAFT or SENT invoice can be voided'],
    ['VOID', 'void', 'Cannot move an invoice from VOID to VOID: it is already VOID; only a DRAFT or SENT invoice can be voided'],
    ['SENT', 'update', 'Cannot update an invoice that is SENT; only a DRAFT invoice can be changed'],
    ['PAID', 'delete', 'Cannot delete an invoice that is PAID; only a DRAFT invoice can be deleted'],
  ] as const)('names both states when refusing %s -> %s', (from, action, message) => {
    expect(refusal(from, action).message).toBe(message);
  });
});

describe('statusesAllowing', () => {
  it('reads the statuses each action starts from off the table', () => {
    expect(Object.fromEntries(INVOICE_ACTIONS.map((a) => [a, statusesAllowing(a)]))).toEqual({
      update: ['DRAFT'], send: ['DRAFT'], markPaid: ['SENT'], void: ['DRAFT', 'SENT'], delete: ['DRAFT'],
    });
  });
});
