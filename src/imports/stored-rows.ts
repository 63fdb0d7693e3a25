import type { UploadedRow } from './read-upload';

// How an upload's rows are kept in its chunks (import_chunks.data): one JSON line per row,
// `[line, cells]` for CSV and `[line, text]` for NDJSON (each line is parsed as JSON by the job,
// so a line that is not JSON is that row's error). Each chunk starts on a row, so the job reads
// one chunk at a time and its cursor is (chunk, rows done in it).

export function encodeRow(row: UploadedRow): string {
  return JSON.stringify('cells' in row ? [row.line, row.cells] : [row.line, row.text]);
}

export function decodeChunk(data: Buffer): UploadedRow[] {
  return data.toString('utf8').split('\n').map((line) => {
    const [at, content] = JSON.parse(line) as [number, string[] | string];
    return typeof content === 'string' ? { line: at, text: content } : { line: at, cells: content };
  });
}
