import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestContext } from '../helpers/test-app';
import { createLead, createWorkspace } from '../helpers/factories';
import { cli } from '../helpers/cli-harness';
import { csvRecords, exportLeads, exportText } from '../helpers/leads-export';

// `workspace-api export`: the export the REST route streams, written by the operators' tool
// straight from the database.

const ctx = createTestContext();
const dir = mkdtempSync(join(tmpdir(), 'cli-export-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await ctx.close();
});

describe('workspace-api export', () => {
  it('writes the same CSV the REST export answers to --output, and says how many leads', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id, { name: '=Formula', notes: 'two\nlines' });
    await createLead(ctx.db, ws.org.id, { status: 'LOST' });
    const file = join(dir, 'leads.csv');

    const run = await cli('export', '--org', ws.org.id, '--output', file);

    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toBe(`exported 2 leads of ${ws.org.id} to ${file} (csv)\n`);
    expect(readFileSync(file, 'utf8')).toBe(exportText(await exportLeads(ctx.app, ws.key, { format: 'csv' })));
    expect(csvRecords(readFileSync(file, 'utf8')).map((r) => r.name)).toContain("'=Formula");
  });

  it('writes NDJSON to stdout with the filters as flags, the count on stderr', async () => {
    const ws = await createWorkspace(ctx.db);
    const lost = await createLead(ctx.db, ws.org.id, { status: 'LOST' });
    await createLead(ctx.db, ws.org.id, { status: 'QUALIFIED' });

    const run = await cli('export', '--org', ws.org.id, '--format', 'ndjson', '--status', 'LOST');

    expect(run.code).toBe(0);
    expect(run.err).toBe('exported 1 leads\n');
    expect(run.out).toBe(exportText(await exportLeads(ctx.app, ws.key, { format: 'ndjson', status: 'LOST' })));
    expect(JSON.parse(run.out).id).toBe(lost.id);
  });

  it('answers a bad filter or format with the API\'s message naming the flag, exit 2', async () => {
    const ws = await createWorkspace(ctx.db);
    const status = await cli('export', '--org', ws.org.id, '--status', 'NOPE');
    const format = await cli('export', '--org', ws.org.id, '--format', 'xml');
    expect(status.code).toBe(2);
    expect(status.err).toMatch(/^--status: expected one of NOT_CONTACTED, /);
    expect(format.code).toBe(2);
    expect(format.err).toMatch(/^--format: expected one of csv, ndjson, got "xml"/);
  });

  it('answers exit 1 naming the workspace when there is no such workspace', async () => {
    const run = await cli('export', '--org', 'org_nosuchworkspace000000', '--output', join(dir, 'x.csv'));
    expect(run.code).toBe(1);
    expect(run.err).toBe('no workspace org_nosuchworkspace000000\n');
  });
});
