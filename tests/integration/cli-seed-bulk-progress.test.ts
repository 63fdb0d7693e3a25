import { createDb, type Db } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';
import { createTestContext, testDatabaseUrl } from '../helpers/test-app';
import { useOwnDatabase } from '../helpers/own-database';
import { createOrg } from '../helpers/factories';
import { cli, cliOn, cliProcess } from '../helpers/cli-harness';

const ctx = createTestContext();
afterAll(() => ctx.close());

const PHASE_LINE = /^\[[0-9.hms]+\] (prepare|load|indexes|counters|vacuum): \S/;

/** Checks stderr is plain phase lines and answers them; `\r` and colour codes belong to terminals only. */
function phaseLines(err: string): string[] {
  expect(err).not.toContain('\r');
  expect(err).not.toContain('\u001b');
  expect(err.endsWith('\n')).toBe(true);
  const lines = err.trimEnd().split('\n');
  for (const line of lines) expect(line).toMatch(PHASE_LINE);
  return lines;
}

/** The phases in the order their lines came, each once. */
const phasesOf = (lines: string[]) => [...new Set(lines.map((line) => PHASE_LINE.exec(line)![1]))];

// Shares the run's database, so each load keeps every index (see seed-bulk.test.ts).
describe('cli seed bulk progress when stderr is not a terminal', () => {
  it('prints each phase as a plain line with its time: load, indexes, counters, vacuum', async () => {
    const org = await createOrg(ctx.db);

    const run = await cli('seed', 'bulk', '--org', org.id, '--leads', '300', '--keep-indexes');

    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^loaded 300 leads into /);
    const lines = phaseLines(run.err);
    expect(phasesOf(lines)).toEqual(['prepare', 'load', 'indexes', 'counters', 'vacuum']);
    expect(lines).toContainEqual(expect.stringMatching(/\] load: 300 leads in 1 batch, 1 at a time, assigned among 5 members$/));
    expect(lines).toContainEqual(expect.stringMatching(/\] load: loaded 300 leads in \d+\.\ds$/));
    expect(lines).toContainEqual(expect.stringMatching(/\] indexes: none dropped for the load/));
    expect(lines).toContainEqual(expect.stringMatching(/\] vacuum: VACUUM \(ANALYZE\) contacts, leads, clients, lead_json, lead_counts$/));
    expect(lines[lines.length - 1]).toMatch(/\] vacuum: done in \d+\.\ds$/);
  });

  it('prints the same plain lines from the binary when stderr is a pipe', async () => {
    const org = await createOrg(ctx.db);

    const run = await cliProcess({ DATABASE_URL: testDatabaseUrl() }, 'seed', 'bulk', '--org', org.id, '--leads', '200', '--keep-indexes');

    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^loaded 200 leads into /);
    expect(phasesOf(phaseLines(run.err))).toEqual(['prepare', 'load', 'indexes', 'counters', 'vacuum']);
  }, 90_000);
});

// Dropping indexes changes what every workspace shares: a database of its own.
describe('cli seed bulk progress while the indexes are built again', () => {
  const url = useOwnDatabase('wsapi_cli_progress');
  let db: Db;
  beforeAll(async () => {
    db = createDb({ url, poolMax: 2 });
    await migrateLatest(db);
  });
  afterAll(() => db.destroy());

  it('names the indexes dropped for the load, each as its build starts ("index i of n"), and how many were built in what time', async () => {
    const org = await createOrg(db);

    const run = await cliOn(url, 'seed', 'bulk', '--org', org.id, '--leads', '200', '--rebuild-indexes');

    expect(run.code).toBe(0);
    const lines = phaseLines(run.err);
    const dropped = lines.map((line) => /\] indexes: building again the (\d+) indexes dropped for the load \(([^)]*)\)$/.exec(line)).find((match) => match !== null);
    expect(dropped).toBeDefined();
    const names = dropped![2]!.split(', ');
    expect(names.length).toBeGreaterThan(1);
    expect(Number(dropped![1])).toBe(names.length);
    const perIndex = lines.map((line) => / indexes: index (\d+) of (\d+): (\S+)$/.exec(line)).filter((match) => match !== null);
    expect(perIndex.map((match) => Number(match[1]))).toEqual(names.map((_, i) => i + 1));
    expect(perIndex.every((match) => Number(match[2]) === names.length)).toBe(true);
    expect(perIndex.map((match) => match[3]).sort()).toEqual([...names].sort());
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`\\] indexes: built ${names.length} indexes in \\d+\\.\\ds$`)));
  });
});
