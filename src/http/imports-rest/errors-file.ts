import { once } from 'node:events';
import type { Response } from 'express';
import type { Db } from '../../db/knex';
import * as importsQueries from '../../db/imports';
import { noSuchImport } from '../../procedures/imports/get-by-id';
import { csvLine } from '../../imports/csv-text';

/** Problems read per statement while the file streams. */
const PAGE = 1000;

/**
 * An import's failed rows as CSV (`line,field,message,row`: one line per problem, the row as
 * sent), streamed page by page in the file's order: a slow reader slows the reads, and a reader
 * that goes away ends them. Cells are guarded against CSV injection (csv-text.ts).
 */
export async function sendErrorsFile(db: Db, orgId: string, importId: string, res: Response): Promise<void> {
  const row = await importsQueries.getById(db, orgId, importId);
  if (!row) throw noSuchImport(importId);
  res.status(200);
  res.set('Content-Type', 'text/csv; charset=utf-8');
  res.set('Content-Disposition', `attachment; filename="${importId}-errors.csv"`);
  res.write(csvLine(['line', 'field', 'message', 'row']));
  let after: { line: number; issue: number } | undefined;
  while (!res.destroyed) {
    const errors = await importsQueries.errorsAfter(db, orgId, importId, after, PAGE);
    let text = '';
    for (const e of errors) text += csvLine([String(e.line), e.field, e.message, e.rowText]);
    if (text && !res.write(text)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    if (errors.length < PAGE) break;
    const last = errors[errors.length - 1]!;
    after = { line: last.line, issue: last.issue };
  }
  res.end();
}
