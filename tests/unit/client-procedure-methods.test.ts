import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { procedures } from '../../src/procedures';
import { procedureMethods } from '../../src/client/procedure-methods';

describe('the typed client procedure map', () => {
  it('lists exactly the exposed procedures of the registry, each with its method', () => {
    const exposed = Object.fromEntries(procedures.filter((p) => p.exposed).map((p) => [p.name, p.method]));

    // On failure, the expected object is the map to paste into src/client/procedure-methods.ts.
    expect({ ...procedureMethods }).toEqual(exposed);
  });

  it('leaves out every app-only procedure', () => {
    const appOnly = procedures.filter((p) => !p.exposed).map((p) => p.name);

    expect(appOnly.length).toBeGreaterThan(0);
    expect(appOnly.filter((name) => name in procedureMethods)).toEqual([]);
  });
});

describe('the typed client sources', () => {
  it('import only each other and superjson at run time; server modules by `import type` only', () => {
    const dir = join(__dirname, '../../src/client');
    const runtimeImports = readdirSync(dir)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => [...readFileSync(join(dir, file), 'utf8').matchAll(/^import (?!type )[^;]*from '([^']+)'/gm)].map((m) => `${file}: ${m[1]}`))
      .filter((line) => !/: (\.\/[\w-]+|superjson)$/.test(line));

    expect(runtimeImports).toEqual([]);
  });
});
