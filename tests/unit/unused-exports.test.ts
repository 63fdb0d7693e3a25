import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Nothing in src/ is exported that nothing imports: knip (knip.json says what the entry points
 * are: the service, the CLI, the worker, the developer page, scripts, bench, seeds, migrations and
 * tests) lists exports and exported types no other module uses. `npm run lint:unused` runs the
 * same command.
 */
const ROOT = join(__dirname, '..', '..');
const KNIP_ARGS = ['--include', 'exports,types,nsExports,nsTypes,duplicates', '--no-progress', '--no-config-hints'];

describe('exports in src/', () => {
  it('are each imported somewhere (knip)', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/knip/bin/knip.js'), ...KNIP_ARGS], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    expect({ status: run.status, output: `${run.stdout}${run.stderr}`.trim() }).toEqual({ status: 0, output: '' });
  }, 150_000);
});
