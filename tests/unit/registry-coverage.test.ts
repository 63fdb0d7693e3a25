import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { procedures } from '../../src/procedures';

/** The text of every integration test, to find which procedures some test calls by name. */
function integrationTestSources(): string {
  const dir = join(__dirname, '..', 'integration');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
}

describe('the procedure registry', () => {
  const sources = integrationTestSources();

  it.each(procedures.map((p) => [p.name, p] as const))('%s has a method, a scope, an exposed flag and an input schema', (_name, procedure) => {
    expect(['GET', 'POST']).toContain(procedure.method);
    expect(procedure.scope).toMatch(/^[a-z][A-Za-z]*\.(read|create|update|delete|erase)$/);
    expect(typeof procedure.exposed).toBe('boolean');
    expect(typeof procedure.input.safeParse).toBe('function');
    expect(procedure.description.length).toBeGreaterThan(0);
  });

  it.each(procedures.map((p) => [p.name] as const))('%s is called by some integration test', (name) => {
    expect(sources.includes(`'${name}'`)).toBe(true);
  });
});
