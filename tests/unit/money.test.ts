import { MONEY_LIMITS, invoiceTotal, isCurrencyCode, lineTotal } from '../../src/domain/money';

describe('lineTotal', () => {
  it('multiplies quantity by the unit price in minor units', () => {
    expect(lineTotal({ quantity: 3, unitPrice: 1999 })).toBe(5997);
    expect(lineTotal({ quantity: 7, unitPrice: 0 })).toBe(0);
  });

  it('is exact at the largest line the bounds allow', () => {
    expect(lineTotal({ quantity: MONEY_LIMITS.maxQuantity, unitPrice: MONEY_LIMITS.maxUnitPrice })).toBe(10_000_000_000_000);
  });

  it('refuses a product that is not an exact integer rather than rounding it', () => {
    expect(() => lineTotal({ quantity: 1, unitPrice: 0.5 })).toThrow(RangeError);
    expect(() => lineTotal({ quantity: 2 ** 30, unitPrice: 2 ** 30 })).toThrow(/not an exact integer/);
  });
});

describe('invoiceTotal', () => {
  it('sums the line totals exactly: 3 x 1999 + 1 x 1 = 5998', () => {
    expect(invoiceTotal([{ quantity: 3, unitPrice: 1999 }, { quantity: 1, unitPrice: 1 }])).toBe(5998);
  });

  it('does not drift the way decimal floats do (10 x 10 + 20 x 1 minor units)', () => {
    expect(invoiceTotal([{ quantity: 1, unitPrice: 10 }, { quantity: 1, unitPrice: 20 }])).toBe(30);
  });

  it('is 0 for no lines', () => {
    expect(invoiceTotal([])).toBe(0);
  });

  it('stays an exact integer for the largest invoice the bounds allow (10^15)', () => {
    const line = { quantity: MONEY_LIMITS.maxQuantity, unitPrice: MONEY_LIMITS.maxUnitPrice };
    const total = invoiceTotal(Array.from({ length: MONEY_LIMITS.maxItems }, () => line));
    expect(total).toBe(1_000_000_000_000_000);
    expect(Number.isSafeInteger(total)).toBe(true);
  });
});

describe('isCurrencyCode', () => {
  it.each(['GBP', 'USD', 'EUR', 'JPY'])('accepts %s', (code) => {
    expect(isCurrencyCode(code)).toBe(true);
  });

  it.each(['gbp', 'Gbp', 'GB', 'GBPX', 'ABC', '', ' GBP'])('refuses %j', (code) => {
    expect(isCurrencyCode(code)).toBe(false);
  });
});
