import type { Readable } from 'node:stream';
import { parse, CsvError, type Options } from 'csv-parse';
import { AppError } from '../errors/app-error';
import { LEAD_COLUMNS, MAX_COLUMNS, MAX_ROW_CHARS, type ImportFormat } from './import-format';
import { Utf8Text } from './utf8-lines';

/** One row of the file as the upload read it: where it starts, and its cells (CSV) or its text (NDJSON). */
export type UploadedRow = { line: number; cells: string[] } | { line: number; text: string };

/** What an upload must name in its header, besides what it may. */
export interface HeaderRules {
  /** Columns every row needs (`name`, `phone`; `externalId` to upsert). */
  required: readonly string[];
}

/**
 * The file's rows, read as the request streams (pulled: a slow consumer slows the upload) and
 * checked for what makes a file unreadable, each a 400 naming the line: bytes that are not UTF-8
 * (utf8-lines.ts), unbalanced quotes, a row longer than MAX_ROW_CHARS, a missing, repeated or
 * unknown column in the CSV header, an empty file. What is wrong with one row only (a bad phone,
 * a line that is not JSON) is left to the job, which reports it per row. `onHeader` hears the
 * CSV header's columns before the first row.
 */
export async function* readUpload(
  body: Readable,
  format: ImportFormat,
  rules: HeaderRules,
  onHeader: (columns: string[]) => void,
  maxBytes?: number,
): AsyncGenerator<UploadedRow> {
  const text = body.pipe(new Utf8Text(maxBytes));
  // A failure of the request itself (the client went away) ends the reading too.
  body.once('error', (err) => text.destroy(err));
  if (format === 'csv') yield* csvRows(text, rules, onHeader);
  else yield* ndjsonRows(text);
}

async function* csvRows(text: Readable, rules: HeaderRules, onHeader: (columns: string[]) => void): AsyncGenerator<UploadedRow> {
  // The line the last row ended on, noted as the parser emits it (a row the reader has not taken
  // yet is dropped when the parser fails): the next row starts after it (blank lines aside).
  let lastLine = 0;
  const options: Options<{ record: string[]; line: number }, string[]> = {
    relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_ROW_CHARS,
    on_record: (record, { lines }) => {
      lastLine = lines;
      return { record, line: lines - newlinesIn(record) };
    },
  };
  // csv-parse types on_record as answering a record of the input's shape; it passes on whatever it answers.
  const parser = parse(options as unknown as Options);
  text.once('error', (err) => parser.destroy(err));
  text.pipe(parser);
  let header: string[] | undefined;
  try {
    for await (const { record, line } of parser as AsyncIterable<{ record: string[]; line: number }>) {
      if (!header) {
        header = checkedHeader(record, line, rules);
        onHeader(header);
        continue;
      }
      yield { line, cells: record };
    }
  } catch (err) {
    throw err instanceof CsvError ? csvProblem(err, lastLine) : err;
  }
  if (!header) throw new AppError('BAD_REQUEST', `The file is empty: its first line must be a header row naming the columns (${LEAD_COLUMNS.join(', ')})`);
}

function checkedHeader(cells: string[], line: number, rules: HeaderRules): string[] {
  const known = `the known columns are ${LEAD_COLUMNS.join(', ')}`;
  if (cells.length > MAX_COLUMNS) {
    throw new AppError('BAD_REQUEST', `line ${line}: the header has ${cells.length} columns; it may name at most ${MAX_COLUMNS} (${known})`);
  }
  const columns = cells.map((cell) => cell.trim());
  const seen = new Set<string>();
  for (const column of columns) {
    if (!(LEAD_COLUMNS as readonly string[]).includes(column)) {
      throw new AppError('BAD_REQUEST', `line ${line}: unknown column ${JSON.stringify(column)} (the first line must be a header row naming the columns); ${known}`);
    }
    if (seen.has(column)) throw new AppError('BAD_REQUEST', `line ${line}: the column ${JSON.stringify(column)} is named twice in the header`);
    seen.add(column);
  }
  const missing = rules.required.filter((column) => !seen.has(column));
  if (missing.length > 0) {
    throw new AppError('BAD_REQUEST', `line ${line}: the header names no ${missing.map((c) => JSON.stringify(c)).join(' or ')} column, which every row needs`);
  }
  return columns;
}

function csvProblem(err: CsvError, lastLine: number): AppError {
  const start = lastLine + 1;
  // INVALID_OPENING_QUOTE (a quote inside an unquoted cell) is a code csv-parse's types leave out.
  switch (err.code as string) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return new AppError('BAD_REQUEST', `line ${start}: a quoted cell of the row starting here is not closed by the end of the file (unbalanced quotes)`);
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
    case 'INVALID_OPENING_QUOTE':
      return new AppError('BAD_REQUEST', `line ${lineOf(err, start)}: unbalanced quotes (a quote inside a quoted cell is written "", and a cell with a quote in it is quoted whole)`);
    case 'CSV_MAX_RECORD_SIZE':
      return new AppError('BAD_REQUEST', `line ${start}: the row starting here is longer than ${MAX_ROW_CHARS} characters (a cell too large, or a quote left open?)`);
    default:
      return new AppError('BAD_REQUEST', `line ${lineOf(err, start)}: the file is not readable as CSV`);
  }
}

function lineOf(err: CsvError, fallback: number): number {
  const lines = (err as CsvError & { lines?: unknown }).lines;
  return typeof lines === 'number' && lines > 0 ? lines : fallback;
}

function newlinesIn(cells: readonly string[]): number {
  let count = 0;
  for (const cell of cells) for (let at = cell.indexOf('\n'); at !== -1; at = cell.indexOf('\n', at + 1)) count++;
  return count;
}

/** NDJSON: one row per line (CRLF taken, blank lines skipped); each line is parsed by the job, so a bad one is that row's error. */
async function* ndjsonRows(text: Readable): AsyncGenerator<UploadedRow> {
  let pending = '';
  let line = 0;
  let rows = 0;
  for await (const piece of text as AsyncIterable<string>) {
    pending += piece;
    // Lines are cut by offset, and what is left kept once per piece: slicing the rest after each line would copy it over and over.
    let start = 0;
    let end: number;
    while ((end = pending.indexOf('\n', start)) !== -1) {
      line++;
      const content = pending.slice(start, end > start && pending[end - 1] === '\r' ? end - 1 : end);
      start = end + 1;
      if (content.length > MAX_ROW_CHARS) throw ndjsonTooLong(line);
      if (content.trim() === '') continue;
      rows++;
      yield { line, text: content };
    }
    pending = pending.slice(start);
    if (pending.length > MAX_ROW_CHARS) throw ndjsonTooLong(line + 1);
  }
  line++;
  const content = pending.replace(/\r$/, '');
  if (content.trim() !== '') {
    rows++;
    yield { line, text: content };
  }
  if (rows === 0) throw new AppError('BAD_REQUEST', 'The file is empty: send one leads.create input (a JSON object) per line');
}

function ndjsonTooLong(line: number): AppError {
  return new AppError('BAD_REQUEST', `line ${line}: longer than ${MAX_ROW_CHARS} characters (one leads.create input per line)`);
}
