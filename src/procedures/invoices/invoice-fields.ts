import { MONEY_LIMITS } from '../../domain/money';
import { listOf, objectOf, requiredText, wholeNumber } from '../shared/fields';
import { notInWorkspace } from '../shared/references';

/** Integer minor units and quantities, bounded so every total is an exact JavaScript integer (src/domain/money.ts). */
export const itemField = objectOf({
  description: requiredText(500, { example: 'Website redesign, phase 1' }),
  quantity: wholeNumber(MONEY_LIMITS.minQuantity, MONEY_LIMITS.maxQuantity, undefined, undefined, 2),
  unitPrice: wholeNumber(0, MONEY_LIMITS.maxUnitPrice, 'a whole number of minor units', 'e.g. 1999 for 19.99', 150000),
});

export const itemsField = listOf(itemField, { of: 'invoice lines', min: MONEY_LIMITS.minItems, max: MONEY_LIMITS.maxItems });

export function invoiceNotFound(id: string) {
  return notInWorkspace('invoices', id);
}
