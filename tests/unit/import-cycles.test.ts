import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// A module that reaches itself through its imports loads half-initialised on one side (the
// procedure list and apiKeys.create did, through the scopes): src/ has no cycles, type imports included.

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
});
