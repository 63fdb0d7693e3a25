// CSV text the service writes (the errors file): RFC 4180 quoting, CRLF line ends, and the OWASP
// guard against CSV injection: a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage
// return gets a leading `'`, so a spreadsheet shows it as text instead of running it. (An import
// takes that `'` off again: import-format.ts, withoutFormulaGuard.)

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string): string {
  const guarded = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

export function csvLine(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** A row of an uploaded CSV file written back as CSV (quoted where needed, no guard added): the row as sent, up to its quoting. */
export function csvRowText(cells: readonly string[]): string {
  return cells.map((cell) => (NEEDS_QUOTES.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(',');
}
