import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { procedures } from '../../src/procedures';
import { procedureMethods } from '../../packages/client/src/generated/procedure-methods';

describe('the typed client procedure map', () => {
  it('lists exactly the exposed procedures of the registry, each with its method', () => {
    const exposed = Object.fromEntries(procedures.filter((p) => p.exposed).map((p) => [p.name, p.method]));

    // On failure, `npm run client:types` regenerates the map from the OpenAPI document.
    expect({ ...procedureMethods }).toEqual(exposed);
  });

  it('leaves out every app-only procedure', () => {
    const appOnly = procedures.filter((p) => !p.exposed).map((p) => p.name);

    expect(appOnly.length).toBeGreaterThan(0);
    expect(appOnly.filter((name) => name in procedureMethods)).toEqual([]);
  });
});

describe('the typed client sources', () => {
  it('import only each other and superjson at run time; anything else (@trpc/server) by `import type` only', () => {
    const dir = join(__dirname, '../../packages/client/src');
    const runtimeImports = (readdirSync(dir, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => [...readFileSync(join(dir, file), 'utf8').matchAll(/^(?:import|export) (?!type )[^;]*from '([^']+)'/gm)].map((m) => `${file}: ${m[1]}`))
      .filter((line) => !/: (\.\/[\w/-]+\.js|superjson)$/.test(line));

    expect(runtimeImports).toEqual([]);
  });
});
