/**
 * Money is exact: integer minor units (1999 in GBP is 19.99) times integer quantities, never
 * floating point. The bounds keep every invoice total an exact JavaScript integer:
 * 100 items x 10,000 x 1,000,000,000 = 10^15 < Number.MAX_SAFE_INTEGER (about 9 x 10^15).
 */
export const MONEY_LIMITS = {
  minQuantity: 1,
  maxQuantity: 10_000,
  maxUnitPrice: 1_000_000_000,
  minItems: 1,
  maxItems: 100,
} as const;

export interface PricedLine {
  quantity: number;
  unitPrice: number;
}

/** quantity x unitPrice in minor units; refuses anything that is not an exact integer. */
export function lineTotal({ quantity, unitPrice }: PricedLine): number {
  return exact(quantity * unitPrice, 'line total');
}

/** The sum of the lines' totals in minor units. */
export function invoiceTotal(lines: readonly PricedLine[]): number {
  return exact(lines.reduce((sum, line) => sum + lineTotal(line), 0), 'invoice total');
}

function exact(value: number, what: string): number {
  // Unreachable within MONEY_LIMITS; a guard so a widened bound can never round money silently.
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} ${value} is not an exact integer`);
  return value;
}

/** The ISO 4217 codes this Node's ICU knows, sorted: the only currencies the API takes. */
export const CURRENCY_CODES: readonly string[] = Intl.supportedValuesOf('currency');
const CURRENCIES: ReadonlySet<string> = new Set(CURRENCY_CODES);

/** An ISO 4217 code as this runtime knows it, written in capitals ('GBP', never 'gbp'). */
export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && CURRENCIES.has(code);
}
