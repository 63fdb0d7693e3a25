import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Tests outside the performance-contract suite reach src/db/ only through its documented entry
 * points (docs/testing.md): the database handle (knex, connect, migrator), the table names, the
 * page arithmetic (pagination), and
 * each resource's folder entry (src/db/<resource>, its index.ts). Internal files (a list's
 * compiled page, the counters, the bulk seed, the hot reads' internals, nodes/*) are pinned only by
 * tests/performance-contracts/, so a change behind an entry point breaks no behaviour test.
 */

const ROOT = resolve(__dirname, '..', '..');
const DB = join(ROOT, 'src', 'db');
const CONTRACTS = join(ROOT, 'tests', 'performance-contracts');
const HANDLE_MODULES = ['knex', 'connect', 'migrator', 'tables', 'pagination'];

/** Every module specifier of a file: static and dynamic imports, exports from, require and jest.mock. */
function specifiersOf(text: string): string[] {
  const found: string[] = [];
  const patterns = [/\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\b(?:import|require|jest\.mock|jest\.requireActual)\s*\(\s*['"]([^'"]+)['"]/g];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

/** Whether `target` (absolute, without extension) is an entry point of src/db. */
function isEntryPoint(target: string): boolean {
  const inDb = relative(DB, target).split(sep).filter((part) => part !== '');
  if (inDb.length === 1) {
    const [name] = inDb as [string];
    return HANDLE_MODULES.includes(name) || existsSync(join(DB, name, 'index.ts'));
  }
  // src/db/<resource>/index, written out.
  return inDb.length === 2 && inDb[1] === 'index' && existsSync(join(DB, inDb[0]!, 'index.ts'));
}

/** The imports of `file` (whose text is `text`) that reach into src/db/ past its entry points, as written. */
export function internalDbImports(file: string, text: string): string[] {
  return specifiersOf(text).filter((specifier) => {
    if (!specifier.startsWith('.')) return false;
    const target = resolve(dirname(file), specifier).replace(/\.(js|ts)$/, '');
    const inDb = relative(DB, target);
    if (inDb.startsWith('..') || inDb === '') return false;
    return !isEntryPoint(target);
  });
}

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (path === CONTRACTS || name === 'node_modules' || name === 'fixtures') return [];
    if (statSync(path).isDirectory()) return testFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

describe('tests import src/db only through its entry points', () => {
  it('finds no test or helper outside tests/performance-contracts importing an internal file of src/db', () => {
    const files = testFiles(join(ROOT, 'tests'));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) => internalDbImports(file, readFileSync(file, 'utf8')).map((specifier) => `${relative(ROOT, file)}: ${specifier}`));
    expect(offenders).toEqual([]);
  });

  it('catches an internal file, a nested one and a dynamic import, and lets the entry points through', () => {
    const file = join(ROOT, 'tests', 'integration', 'example.test.ts');
    // Written with ${db} so this file's own text holds no such import.
    const db = '../../src/db';
    const text = [
      `import { createDb } from '${db}/knex';`,
      `import { connectDatabase } from '${db}/connect';`,
      `import { migrateLatest } from '${db}/migrator';`,
      `import { TABLES } from '${db}/tables';`,
      `import * as leads from '${db}/leads';`,
      `import * as contacts from '${db}/contacts/index';`,
      `import { pageStatement } from '${db}/leads/page-statement';`,
      `import { HotReads } from '${db}/hot-reads';`,
      `import { createNodeGuard } from '${db}/nodes/node-guard.js';`,
      `const counters = await import('${db}/leads/counters');`,
      `export { toPage } from '${db}/pagination';`,
      `import { createApp } from '../../src/app';`,
    ].join('\n');
    expect(internalDbImports(file, text)).toEqual([
      '../../src/db/leads/page-statement', '../../src/db/hot-reads', '../../src/db/nodes/node-guard.js', '../../src/db/leads/counters',
    ]);
  });

  it('leaves the performance-contract suite to pin what it must', () => {
    expect(testFiles(join(ROOT, 'tests')).some((file) => file.startsWith(CONTRACTS))).toBe(false);
  });
});
