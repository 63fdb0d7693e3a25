import { useOwnDatabase } from '../helpers/own-database';
import { cliOn } from '../helpers/cli-harness';

// Pods starting together on Kubernetes each run `workspace-api migrate` (their init container):
// on a new database they must wait for each other, not fail on knex's lock.
describe('cli migrate run several times at once', () => {
  const url = useOwnDatabase('wsapi_cli_migrate');

  it('exits 0 every time; one applies the migrations and the others find the schema current', async () => {
    const runs = await Promise.all([1, 2, 3].map(() => cliOn(url, 'migrate', '--json')));

    expect(runs.map((run) => [run.code, run.err])).toEqual([[0, ''], [0, ''], [0, '']]);
    const applied = runs.map((run) => (JSON.parse(run.out) as { applied: string[] }).applied.length);
    expect(applied.filter((count) => count > 0)).toHaveLength(1);
    expect(applied.filter((count) => count === 0)).toHaveLength(2);
  }, 120_000);
});
