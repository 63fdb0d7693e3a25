// What an import file may hold (docs/importing-and-exporting.md, "## Import"): its columns, and
// the limits that keep an upload's memory bounded whatever it sends.

/** The CSV header's names: the fields of leads.create, `phones`/`emails` as `;`-separated lists, and `externalId`. */
export const LEAD_COLUMNS = [
  'name', 'phone', 'phones', 'email', 'emails', 'company', 'source', 'notes', 'status', 'nextCallAt', 'assignedToId', 'externalId',
] as const;

/** Columns whose cell holds several values separated by `;`. */
export const LIST_COLUMNS: ReadonlySet<string> = new Set(['phones', 'emails']);
export const LIST_SEPARATOR = ';';

/** The largest file taken (413 beyond it, counted while it streams). */
export const MAX_IMPORT_BYTES = 100 * 1024 * 1024;
/**
 * The longest row (a CSV record or an NDJSON line), in characters: a lead's fields are at most
 * about 25 kB (notes 10,000, twenty phones and emails); a longer row is a 400 naming its line,
 * and no parser ever buffers more than this of one row.
 */
export const MAX_ROW_CHARS = 1024 * 1024;
/** A header can name each known column once: more columns than this is a 400 before they are read one by one. */
export const MAX_COLUMNS = LEAD_COLUMNS.length;
/** Rows stored per chunk of the upload (about 1 MB): what the job reads at a time. */
export const CHUNK_BYTES = 1024 * 1024;

export const IMPORT_MEDIA_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;
export type ImportFormat = keyof typeof IMPORT_MEDIA_TYPES;

/**
 * The guard a CSV export puts before a cell that a spreadsheet would run as a formula (the OWASP
 * rule: `'` before `=`, `+`, `-`, `@`, a tab or a carriage return) is taken off on import, so an
 * exported file imports as it was: `'+447700900123` is the phone `+447700900123`.
 */
export function withoutFormulaGuard(cell: string): string {
  return cell.length > 1 && cell[0] === "'" && '=+-@\t\r'.includes(cell[1]!) ? cell.slice(1) : cell;
}
