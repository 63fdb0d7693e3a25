// C0 and C1 control characters: ESC among them, which starts a terminal's colour and cursor codes.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Stored text as a terminal may show it: control characters escaped (`\u001b`), so a workspace or
 * member name cannot colour the output, move the cursor or break a table's rows. --json needs no
 * such care: JSON.stringify escapes them itself.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Rows under a header, each column as wide as its widest cell, two spaces apart. */
export function formatTable(header: string[], rows: string[][]): string {
  const cells = [header, ...rows.map((row) => row.map(printable))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

/** `label  value` lines, the values aligned. */
export function formatFields(fields: [string, string][]): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${label.padEnd(width)}  ${printable(value)}`).join('\n');
}
