import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

// A module that reaches itself through its imports loads half-initialised on one side (the
// procedure list and apiKeys.create did, through the scopes): src/ has no cycles, type imports included.
// And the data layer stays below what uses it: src/db/ answers what a write changed and never
// decides events, scopes, wake-ups or HTTP, so it imports nothing from the layers above it
// (type imports included).

const SRC = resolve(__dirname, '../../src');
/** Relative module specifiers in import and export-from statements (dynamic imports included). */
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function resolveModule(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  return [`${base}.ts`, join(base, 'index.ts'), base].find((path) => path.endsWith('.ts') && existsSync(path));
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(SPECIFIER)].map((m) => resolveModule(file, m[1]!)).filter((path): path is string => path !== undefined);
}

/** Every cycle found by a depth-first walk, each as the files around it. */
function cyclesIn(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string) => {
    if (onPath.has(file)) return void cycles.push([...path.slice(path.indexOf(file)), file]);
    if (done.has(file)) return;
    onPath.add(file);
    path.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    path.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file);
  return cycles;
}

/** The folders of src/ that src/db/ must not import from: each is built on the data layer. */
const ABOVE_DB = ['events', 'auth', 'procedures', 'live', 'http', 'rpc', 'server', 'webhooks', 'idempotency', 'ratelimit', 'observability'];

/** Every import from a file under `from` of a file under one of `forbidden` (folders relative to `root`), as `importer -> imported`. */
function importsAcross(graph: Map<string, string[]>, root: string, from: string, forbidden: readonly string[]): string[] {
  const under = (file: string, dir: string) => file.startsWith(join(root, dir) + sep);
  return [...graph].flatMap(([file, imports]) => (under(file, from)
    ? imports.filter((imported) => forbidden.some((dir) => under(imported, dir))).map((imported) => `${relative(root, file)} -> ${relative(root, imported)}`)
    : []));
}

describe('imports in src/', () => {
  const graph = new Map(sourceFiles(SRC).map((file) => [file, importsOf(file)]));

  it('are read by this check (it sees the imports there are)', () => {
    expect(graph.get(join(SRC, 'app.ts'))).toContain(join(SRC, 'config.ts'));
    expect(cyclesIn(new Map([['a', ['b']], ['b', ['a']]]))).toEqual([['a', 'b', 'a']]);
  });

  it('never lead back to the module they start from', () => {
    const cycles = cyclesIn(graph).map((cycle) => cycle.map((file) => relative(SRC, file)).join(' -> '));
    expect(cycles).toEqual([]);
  });

  it('are checked for layers by a rule that finds a data module importing a layer above it', () => {
    const root = join(sep, 'app', 'src');
    const at = (path: string) => join(root, path);
    const bad = new Map([
      [at('db/leads/writes.ts'), [at('db/tables.ts'), at('events/lead-events.ts'), at('domain/ids.ts')]],
      [at('db/events/index.ts'), [at('server/periodic-job.ts')]],
      // Only imports from db/ count, and a folder's name must match whole (db-tools is not db).
      [at('procedures/leads/create.ts'), [at('db/leads/index.ts'), at('events/record-events.ts')]],
      [at('db-tools/x.ts'), [at('events/y.ts')]],
      [at('db/x.ts'), [at('eventsource/y.ts')]],
    ]);
    expect(importsAcross(bad, root, 'db', ABOVE_DB)).toEqual(['db/leads/writes.ts -> events/lead-events.ts', 'db/events/index.ts -> server/periodic-job.ts']);
    // And the real graph holds what the rule is about: src/db/ has files, and they import.
    expect(graph.get(join(SRC, 'db/leads/writes.ts'))).toContain(join(SRC, 'db/tables.ts'));
  });

  it('from src/db/ never reach a layer above the data layer (events, auth, procedures, live, http, rpc, server, ...)', () => {
    expect(importsAcross(graph, SRC, 'db', ABOVE_DB)).toEqual([]);
  });
});
