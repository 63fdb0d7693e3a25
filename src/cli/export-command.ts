import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import * as orgsQueries from '../db/orgs';
import * as leads from '../db/leads';
import { AppError } from '../errors/app-error';
import { leadsExportQuery, toLeadListFilters } from '../procedures/leads/lead-list.schema';
import { defineCommand, noOperands, optional, required, UsageError, type CliStream } from './command';

/** The filters of `GET /api/v1/leads/export` as flags (`assignedToId` -> `--assigned-to-id`): a filter added there is a flag here. */
const FILTERS = Object.keys(leadsExportQuery.shape).filter((name) => name !== 'format');
const flagOf = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export const exportCommand = defineCommand({
  name: 'export',
  summary: "write a workspace's leads as CSV or NDJSON, from one snapshot, to a file or stdout",
  options: [
    { flags: '--org <ORG>', description: 'the workspace id (org_...; see `org list`)', required: true },
    { flags: '--format <FORMAT>', description: 'csv (default) or ndjson, as GET /api/v1/leads/export writes them' },
    { flags: '--output <FILE>', description: 'write the export here (default: stdout, with the count on stderr)' },
    ...FILTERS.map((name) => ({ flags: `--${flagOf(name)} <VALUE>`, description: `only leads matching this ${name}, as the REST list's filter` })),
  ],
  examples: ['export --org ORG --output leads.csv', 'export --org ORG --format ndjson --status QUALIFIED'],
  parse(values, operands) {
    noOperands(operands);
    const query: Record<string, string> = {};
    for (const name of [...FILTERS, 'format']) {
      const value = optional(values, flagOf(name));
      if (value !== undefined) query[name] = value;
    }
    const parsed = leadsExportQuery.safeParse(query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new UsageError(`--${flagOf(String(issue.path[0]))}: ${issue.message}`);
    }
    const output = optional(values, 'output');
    if (values.json === true && output === undefined) throw new UsageError('--json needs --output: without it the export itself goes to stdout');
    return { orgId: required(values, 'org'), query: parsed.data, output };
  },
  async run(db, args, { io }) {
    if (!(await orgsQueries.getById(db, args.orgId))) throw new AppError('NOT_FOUND', `no workspace ${args.orgId}`);
    const opened = await leads.openExport(db, args.orgId, toLeadListFilters(args.query), args.query.format);
    try {
      if (args.output !== undefined) await pipeline(opened.bytes, createWriteStream(args.output));
      else await writeAll(opened.bytes, io.out);
    } catch (err) {
      await opened.abort();
      throw err;
    }
    await opened.finish();
    const rows = (opened.bytes as unknown as { rowCount: number }).rowCount;
    const result = { orgId: args.orgId, format: args.query.format, leads: rows, output: args.output ?? null };
    if (args.output === undefined) io.err.write(`exported ${result.leads} leads\n`);
    return result;
  },
  // To stdout the export is the output: its count went to stderr.
  describe: (r) => (r.output === null ? '' : `exported ${r.leads} leads of ${r.orgId} to ${r.output} (${r.format})`),
});

/** The bytes to a CLI stream as text, waiting for a stream that says it is full (stdout to a slow pipe) to drain. */
async function writeAll(bytes: AsyncIterable<Buffer>, out: CliStream): Promise<void> {
  const decoder = new TextDecoder();
  const drains = out as CliStream & { once?: (event: 'drain', listener: () => void) => unknown };
  for await (const chunk of bytes) {
    if (out.write(decoder.decode(chunk, { stream: true })) === false && drains.once) {
      await new Promise<void>((resolve) => drains.once!('drain', resolve));
    }
  }
  out.write(decoder.decode());
}
