import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDb } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { cli } from '../helpers/cli-harness';

const db = createTestDb();
const dir = mkdtempSync(join(tmpdir(), 'wsapi-import-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db.destroy();
});

describe('workspace-api import FILE --org ORG', () => {
  it('imports the file, reports the counts and saves the failed rows beside it', async () => {
    const ws = await createWorkspace(db);
    const file = join(dir, 'leads.csv');
    writeFileSync(file, 'name,phone\nAna,+442079460031\nBo,12\n');
    const run = await cli('import', file, '--org', ws.org.id);
    expect(run.code).toBe(0);
    expect(run.out).toContain('succeeded: 1 created, 0 updated, 1 failed of 2 rows');
    expect(run.out).toContain(`failed rows: ${file}.errors.csv`);
    expect(readFileSync(`${file}.errors.csv`, 'utf8')).toMatch(/^line,field,message,row\r\n3,phone,"expected a phone number/);
    const leads = await db('leads').where({ org_id: ws.org.id }).count({ n: '*' });
    expect(Number(leads[0]!.n)).toBe(1);
    const [event] = await db('events').where({ org_id: ws.org.id, type: 'import.completed' }).select('actor_kind', 'actor_id');
    expect(event).toEqual({ actor_kind: 'system', actor_id: 'cli' });
  });

  it('with --dry-run --json writes nothing and answers the import as JSON; a file that cannot be read is refused naming the line', async () => {
    const ws = await createWorkspace(db);
    const file = join(dir, 'upsert.ndjson');
    writeFileSync(file, '{"externalId":"a","name":"Ana","phone":"+442079460032"}\n');
    const run = await cli('import', file, '--org', ws.org.id, '--mode', 'upsert', '--dry-run', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ status: 'succeeded', dryRun: true, mode: 'upsert', rows: { created: 1 }, errorsFile: null });
    expect(existsSync(`${file}.errors.csv`)).toBe(false);
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'name,fax\n');
    const refused = await cli('import', bad, '--org', ws.org.id);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('line 1: unknown column "fax"');
    const leads = await db('leads').where({ org_id: ws.org.id }).count({ n: '*' });
    expect(Number(leads[0]!.n)).toBe(0);
  });
});
