import { LIST_COLUMNS, LIST_SEPARATOR, withoutFormulaGuard } from './import-format';
import type { UploadedRow } from './read-upload';
import { csvRowText } from './csv-text';

/** A row's problem before its fields can be checked: the row as a whole (field ''). */
export interface RowProblem {
  field: string;
  message: string;
}

/**
 * A stored row as the input of leads.create (or leads.upsert): an NDJSON line parsed as JSON; a
 * CSV row's cells by the header's columns, an empty cell left out (the field's default on a
 * create, unchanged on an upsert), `phones` and `emails` split on `;`, and an export's formula
 * guard taken off (import-format.ts).
 */
export function rawInputOf(row: UploadedRow, columns: readonly string[] | null): { input: unknown } | { problem: RowProblem } {
  if ('text' in row) {
    try {
      return { input: JSON.parse(row.text) as unknown };
    } catch {
      return { problem: { field: '', message: 'expected a JSON object (one leads.create input per line); this line is not valid JSON' } };
    }
  }
  const header = columns ?? [];
  if (row.cells.length !== header.length) {
    return { problem: { field: '', message: `expected ${header.length} cells, as the header has; this row has ${row.cells.length}` } };
  }
  const input: Record<string, unknown> = {};
  row.cells.forEach((cell, i) => {
    const value = withoutFormulaGuard(cell);
    if (value === '') return;
    const column = header[i]!;
    input[column] = LIST_COLUMNS.has(column)
      ? value.split(LIST_SEPARATOR).map((item) => withoutFormulaGuard(item.trim())).filter((item) => item !== '')
      : value;
  });
  return { input };
}

/** The row as it was sent, for the errors file: an NDJSON line as it was, a CSV row written back as CSV. */
export function rowTextOf(row: UploadedRow): string {
  return 'text' in row ? row.text : csvRowText(row.cells);
}
