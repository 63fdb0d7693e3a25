import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every installed package runs on the oldest Node the service supports (package.json's
 * `engines.node`, the README's floor): a package whose own `engines.node` leaves that version out
 * makes `npm install` print `npm warn EBADENGINE` there, and may not run. package-lock.json
 * records each installed package's `engines`, so the whole tree is checked, not just the direct
 * dependencies. (semver is in the tree through babel; its API here is as old as semver 6.)
 */
const semver = require('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
  validRange(range: string): string | null;
};

const ROOT = join(__dirname, '..', '..');
const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, any>;

interface LockEntry {
  version?: string;
  engines?: unknown;
  link?: boolean;
}

/** The lock's packages whose `engines.node` leaves out `floor`, as `path@version wants range`. */
export function excludingFloor(floor: string, packages: Record<string, LockEntry>): string[] {
  return Object.entries(packages).flatMap(([path, entry]) => {
    if (path === '' || entry.link) return [];
    const node = (entry.engines as { node?: unknown } | undefined)?.node;
    if (typeof node !== 'string') return [];
    const ok = semver.validRange(node) !== null && semver.satisfies(floor, node);
    return ok ? [] : [`${path.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'} wants node ${node}`];
  });
}

describe('the installed packages and the Node floor', () => {
  const floorRange = json('package.json').engines.node as string;
  const floor = semver.minVersion(floorRange)!.version;

  it('reads the floor from package.json', () => {
    expect(floor).toMatch(/^20\.\d+\.\d+$/);
  });

  it("finds no installed package whose engines.node excludes the floor (package-lock.json's engines)", () => {
    const packages = json('package-lock.json').packages as Record<string, LockEntry>;
    expect(Object.keys(packages).length).toBeGreaterThan(100);
    expect(excludingFloor(floor, packages)).toEqual([]);
  });

  it('catches a package that asks for a newer Node, and lets ranges that include the floor through', () => {
    expect(excludingFloor('20.19.0', {
      '': { version: '0.1.0', engines: { node: '>=20.19' } },
      'node_modules/@apidevtools/json-schema-ref-parser': { version: '16.0.6', engines: { node: '>=22.19.0' } },
      'node_modules/@apidevtools/swagger-parser': { version: '13.0.0', engines: { node: '^20.19.0 || >=22.12.0' } },
      'node_modules/old': { version: '1.0.0', engines: { node: '>= 0.8' } },
      'node_modules/a/node_modules/eventsource': { version: '5.0.0', engines: { node: '>=22.12' } },
      'node_modules/no-engines': { version: '1.0.0' },
    })).toEqual([
      '@apidevtools/json-schema-ref-parser@16.0.6 wants node >=22.19.0',
      'eventsource@5.0.0 wants node >=22.12',
    ]);
  });
});
