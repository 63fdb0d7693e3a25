import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * .ci/run runs the README's test command (`npm test`) and the performance-contract suite on each
 * of the three databases, and finds the Citus script relative to the repository (or
 * CI_CITUS_CLUSTER), never at one machine's absolute path.
 */
const ROOT = join(__dirname, '..', '..');
const CI = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
const commands = CI.split('\n').filter((line) => !/^\s*(#|echo\b)/.test(line));

describe('.ci/run', () => {
  it('runs npm test and then npm run test:contracts on real PostgreSQL, the embedded database and Citus', () => {
    const runs = commands.map((line) => /^(.*?)\bnpm (test|run test:contracts)\s*$/.exec(line.trim())).filter((m) => m !== null).map((m) => [m[1]!.trim(), m[2]!]);
    expect(runs).toEqual([
      ['TEST_DATABASE_URL="$PG_URL"', 'test'],
      ['TEST_DATABASE_URL="$PG_URL"', 'run test:contracts'],
      ['env -u TEST_DATABASE_URL', 'test'],
      ['env -u TEST_DATABASE_URL', 'run test:contracts'],
      ['env -u TEST_DATABASE_URL TEST_DATABASE_COMMAND="$CITUS"', 'test'],
      ['env -u TEST_DATABASE_URL TEST_DATABASE_COMMAND="$CITUS"', 'run test:contracts'],
    ]);
  });

  it('names no absolute path of a machine, and keeps CI_CITUS_CLUSTER', () => {
    expect(commands.filter((line) => /(^|[\s"'=])\/(work|home|Users|tmp)\//.test(line))).toEqual([]);
    expect(CI).toContain('../shared/citus/cluster.sh');
    expect(CI).toContain('CI_CITUS_CLUSTER');
  });

  it('runs the image test last, after the fault test, with podman-base.sh found relative to the repository (or CI_PODMAN_BASE)', () => {
    const runs = commands.map((line) => line.trim()).filter((line) => /^(CI_CITUS_CLUSTER="\$CITUS" )?npm run test:(faults|image)$/.test(line));
    expect(runs).toEqual(['CI_CITUS_CLUSTER="$CITUS" npm run test:faults', 'npm run test:image']);
    expect(commands.filter((line) => line.trim() !== '').at(-1)!.trim()).toBe('npm run test:image');
    const script = readFileSync(join(ROOT, 'scripts', 'test-image.sh'), 'utf8');
    expect(script).toContain('../shared/docker/podman-base.sh');
    expect(script).toContain('CI_PODMAN_BASE');
  });

  it('leaves the fault test\'s own search for the script relative to the repository too', () => {
    const source = readFileSync(join(ROOT, 'scripts', 'faults', 'cluster.ts'), 'utf8');
    expect(source).not.toMatch(/['"]\/(work|home|Users)\//);
  });
});
