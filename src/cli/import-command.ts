import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { extname } from 'node:path';
import { Format, SingleBar } from 'cli-progress';
import type { Db } from '../db/knex';
import * as importsQueries from '../db/imports';
import { createLogger } from '../logger';
import { csvLine } from '../imports/csv-text';
import { receiveUpload } from '../imports/receive-upload';
import { createImportRunner } from '../imports/import-runner';
import type { ImportFormat } from '../imports/import-format';
import type { CliStream } from './command';
import { defineCommand, oneOperand, optional, required, UsageError } from './command';

/** Who the CLI's imports name in their events: an operator at the database, as the webhook worker is the service itself. */
const CLI_ACTOR = { kind: 'system', id: 'cli' } as const;

/**
 * `import FILE --org ORG`: what POST /api/v1/imports does, from the operator's side, straight on
 * the database as every command: the file is read as a stream into a queued import (the same
 * checks, a 400's message printed as the error), the CLI then runs the workspace's import jobs
 * itself (as a worker does) with a progress bar, and saves the failed rows beside the file.
 */
export const importCommand = defineCommand({
  name: 'import',
  summary: 'import a CSV or NDJSON file of leads into a workspace (failed rows to FILE.errors.csv)',
  operand: { name: 'FILE', description: 'the file: .csv (a header row naming the columns) or .ndjson (one leads.create input per line)' },
  options: [
    { flags: '--org <ORG>', description: 'the workspace id (org_...; see `org list`)', required: true },
    { flags: '--mode <MODE>', description: 'create (default): a new lead per row; upsert: by externalId, create or change' },
    { flags: '--format <FORMAT>', description: 'csv or ndjson (default: from the file name)' },
    { flags: '--dry-run', description: 'check and count every row, write nothing' },
  ],
  examples: ['import leads.csv --org ORG', 'import leads.ndjson --org ORG --mode upsert --dry-run'],
  parse(values, operands) {
    const file = oneOperand(operands, 'FILE');
    const mode = optional(values, 'mode') ?? 'create';
    if (mode !== 'create' && mode !== 'upsert') throw new UsageError('--mode must be create or upsert');
    const format = optional(values, 'format') ?? (extname(file).toLowerCase() === '.ndjson' || extname(file).toLowerCase() === '.jsonl' ? 'ndjson' : 'csv');
    if (format !== 'csv' && format !== 'ndjson') throw new UsageError('--format must be csv or ndjson');
    return { file, orgId: required(values, 'org'), mode: mode as importsQueries.ImportMode, format: format as ImportFormat, dryRun: values['dry-run'] === true, json: values.json === true };
  },
  async run(db, args, { io }) {
    const received = await receiveUpload(db, args.orgId, {
      body: createReadStream(args.file), format: args.format, mode: args.mode, dryRun: args.dryRun, actor: CLI_ACTOR,
    });
    const done = await runUntilEnded(db, received, args.json ? undefined : io.err);
    const errorsFile = done.rows_failed > 0 ? await saveErrors(db, done, `${args.file}.errors.csv`) : null;
    return { ...importsQueries.toImport(done), errorsFile };
  },
  describe: (r) => `import ${r.id} ${r.status}: ${r.rows.created} created, ${r.rows.updated} updated, ${r.rows.failed} failed of ${r.rows.total} rows${r.dryRun ? ' (dry run: nothing written)' : ''}${r.errorsFile ? `\nfailed rows: ${r.errorsFile}` : ''}`,
});

/** Runs the workspace's imports here until this one has ended, drawing its progress on `err`. */
async function runUntilEnded(db: Db, row: importsQueries.ImportRow, err: CliStream | undefined): Promise<importsQueries.ImportRow> {
  const runner = createImportRunner({
    db, logger: createLogger('silent'), concurrency: 1, maxRunningPerWorkspace: 2, leaseMs: 30_000, pollMs: 100, batchRows: 1000, orgIds: [row.org_id],
  });
  const bar = err?.isTTY ? new SingleBar({
    stream: err as NodeJS.WritableStream,
    format: (options, params) => `  import [${Format.BarFormat(params.progress, options)}] ${params.value}/${params.total} rows`,
    barCompleteChar: '#', barIncompleteChar: '.', barsize: 30, hideCursor: true,
  }) : undefined;
  bar?.start(row.rows_total, 0);
  runner.start();
  try {
    for (let last = -1; ;) {
      const current = (await importsQueries.getById(db, row.org_id, row.id))!;
      if (current.rows_processed !== last) {
        last = current.rows_processed;
        if (bar) bar.update(last);
        else err?.write(`import ${row.id}: ${current.status}, ${last}/${current.rows_total} rows\n`);
      }
      if (current.status !== 'queued' && current.status !== 'running') return current;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    bar?.stop();
    await runner.stop();
  }
}

/** The errors file (GET /api/v1/imports/{id}/errors) written to `path`, page by page. */
async function saveErrors(db: Db, row: importsQueries.ImportRow, path: string): Promise<string> {
  const out = createWriteStream(path);
  out.write(csvLine(['line', 'field', 'message', 'row']));
  let after: { line: number; issue: number } | undefined;
  for (;;) {
    const errors = await importsQueries.errorsAfter(db, row.org_id, row.id, after, 1000);
    for (const e of errors) if (!out.write(csvLine([String(e.line), e.field, e.message, e.rowText]))) await once(out, 'drain');
    if (errors.length < 1000) break;
    after = { line: errors.at(-1)!.line, issue: errors.at(-1)!.issue };
  }
  out.end();
  await once(out, 'finish');
  return path;
}
