import { z } from 'zod';
import { MONEY_LIMITS, isCurrencyCode } from '../../domain/money';
import { requiredText } from '../shared/fields';
import { notInWorkspace } from '../shared/references';

/** ISO 4217 in capitals. Lowercase is refused (with the fix named) rather than upper-cased silently. */
export const currencyField = z.string().max(3).superRefine((value, ctx) => {
  if (isCurrencyCode(value)) return;
  const upper = value.toUpperCase();
  const message = value !== upper && isCurrencyCode(upper)
    ? `must be written in capitals: ${JSON.stringify(upper)}, not ${JSON.stringify(value)}`
    : 'must be an ISO 4217 currency code in capitals, e.g. "GBP"';
  ctx.addIssue({ code: 'custom', message });
});

const FIRST_DUE_DATE = Date.UTC(1900, 0, 1);
const LAST_DUE_DATE = Date.UTC(9999, 11, 31);

/**
 * A calendar day: a Date (its UTC day is kept), an ISO 8601 date-time with a time zone, or an ISO
 * date ('2030-01-31'); answered as a Date at UTC midnight.
 */
export const dueDateField = z
  .union(
    [
      z.date(),
      z.iso.datetime({ offset: true }).max(64).transform((s) => new Date(s)),
      z.iso.date().max(10).transform((s) => new Date(`${s}T00:00:00.000Z`)),
    ],
    { error: 'must be a Date, an ISO 8601 date ("2030-01-31") or a date-time with a time zone' },
  )
  .transform((date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())))
  .refine((date) => date.getTime() >= FIRST_DUE_DATE && date.getTime() <= LAST_DUE_DATE, 'must be between 1900-01-01 and 9999-12-31');

/** Integer minor units and quantities, bounded so every total is an exact JavaScript integer (src/domain/money.ts). */
export const itemField = z.strictObject({
  description: requiredText(500),
  quantity: z
    .number()
    .int('must be a whole number')
    .min(MONEY_LIMITS.minQuantity)
    .max(MONEY_LIMITS.maxQuantity),
  unitPrice: z
    .number()
    .int('must be a whole number of minor units (1999 for 19.99)')
    .min(0)
    .max(MONEY_LIMITS.maxUnitPrice),
});

export const itemsField = z.array(itemField).min(MONEY_LIMITS.minItems).max(MONEY_LIMITS.maxItems);

export function invoiceNotFound(id: string) {
  return notInWorkspace('invoices', id);
}
