import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, any>;

/**
 * src/rpc/superjson-meta.ts copies superjson's internal grammar of meta paths (what it accepts of
 * a client's `meta`): a minor release may change that grammar, so the service takes one exact
 * version, and upgrading it is a change that envelope-limits.test.ts checks against superjson's
 * own output.
 */
test('superjson is pinned to the exact version installed', () => {
  const wanted = json('package.json').dependencies.superjson as string;
  expect(wanted).toMatch(/^\d+\.\d+\.\d+$/);
  expect(json('node_modules/superjson/package.json').version).toBe(wanted);
  expect(json('package-lock.json').packages[''].dependencies.superjson).toBe(wanted);
});
