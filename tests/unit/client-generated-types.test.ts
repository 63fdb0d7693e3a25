import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

describe('the client types generated from the OpenAPI document', () => {
  it('are up to date: `npm run client:types` would change nothing', () => {
    // A child process: openapi-typescript and its TypeScript 5 are ES modules of the client
    // package, which jest's CommonJS runtime cannot load. The check regenerates in memory only.
    const ran = spawnSync(process.execPath, ['--import', 'tsx', 'packages/client/scripts/generate-types.ts', '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });

    // On failure the output names the stale files (or why generating failed).
    expect({ status: ran.status, output: ran.stderr }).toEqual({ status: 0, output: expect.not.stringContaining('Stale') });
  }, 70_000);
});
