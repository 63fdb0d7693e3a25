import { z } from 'zod';
import { createRegistry, type AnyProcedure } from '../../src/rpc/registry';
import { defineProcedure } from '../../src/rpc/define-procedure';
import { createProcedureRegistry, procedures } from '../../src/procedures';
import { outputComponentSchemas } from '../../src/openapi/json-schema';
import { composeSample } from '../../src/openapi/sample';

function procedure(overrides: Record<string, unknown> = {}): AnyProcedure {
  return {
    ...defineProcedure({
      name: 'things.getAll',
      method: 'GET',
      scope: 'things.read',
      exposed: true,
      description: 'test',
      input: z.undefined(),
      output: z.unknown(),
      handler: async () => [],
    }),
    ...overrides,
  } as AnyProcedure;
}

describe('createRegistry', () => {
  it('maps each name to its procedure', () => {
    const read = procedure();
    const write = procedure({ name: 'things.create', method: 'POST', scope: 'things.create' });
    const registry = createRegistry([read, write]);
    expect([...registry.keys()]).toEqual(['things.getAll', 'things.create']);
    expect(registry.get('things.create')).toBe(write);
    expect(registry.get('things.nope')).toBeUndefined();
  });

  it('refuses a name defined twice', () => {
    expect(() => createRegistry([procedure(), procedure({ description: 'again' })])).toThrow(/"things\.getAll": defined twice/);
  });

  it.each(['things', 'Things.getAll', 'things.get-all', 'things.getAll.x', 'things.', '.getAll', '', 'things.get_all', 42])(
    'refuses the bad name %j',
    (name) => {
      expect(() => createRegistry([procedure({ name })])).toThrow(/name must be <router>\.<procedure>/);
    },
  );

  it.each([undefined, '', 'things', 'things.write', 'Things.read', 'things.read.all'])('refuses the missing or bad scope %j', (scope) => {
    expect(() => createRegistry([procedure({ scope })])).toThrow(/scope must be <resource>\.<read\|create\|update\|delete\|erase>/);
  });

  it.each([undefined, 'yes', 1, null])('refuses exposed %j that is not a boolean', (exposed) => {
    expect(() => createRegistry([procedure({ exposed })])).toThrow(/exposed must be stated \(true or false\)/);
  });

  it('accepts exposed: false', () => {
    expect(createRegistry([procedure({ exposed: false })]).get('things.getAll')?.exposed).toBe(false);
  });

  it.each(['things.create', 'things.update', 'things.delete'])('refuses a GET with the write scope %s', (scope) => {
    expect(() => createRegistry([procedure({ scope })])).toThrow(/reads are GET with a \.read scope, writes are POST/);
  });

  it('refuses a POST with a read scope', () => {
    expect(() => createRegistry([procedure({ name: 'things.create', method: 'POST', scope: 'things.read' })])).toThrow(
      /reads are GET with a \.read scope, writes are POST/,
    );
  });

  it.each(['PUT', 'get', undefined])('refuses the method %j', (method) => {
    expect(() => createRegistry([procedure({ method })])).toThrow(/method must be GET or POST/);
  });

  it('refuses a procedure without a zod input schema', () => {
    expect(() => createRegistry([procedure({ input: undefined })])).toThrow(/needs a zod input schema/);
  });

  it('refuses a procedure without a zod output schema: every answer is typed, documented and checked', () => {
    expect(() => createRegistry([procedure({ output: undefined })])).toThrow(/needs a zod output schema/);
    expect(() => createRegistry([procedure({ output: { type: 'object' } })])).toThrow(/needs a zod output schema/);
  });

  it('refuses a procedure without a handler', () => {
    expect(() => createRegistry([procedure({ handler: 'nope' })])).toThrow(/needs a handler/);
  });
});

describe('the service registry (src/procedures)', () => {
  it('gives every procedure, exposed or not, an output schema that its own documented example satisfies', () => {
    for (const p of procedures) {
      expect([p.name, typeof p.output?.safeParse]).toEqual([p.name, 'function']);
      const schemas = outputComponentSchemas(new Map([[p.output, 'it']]));
      const example = composeSample(schemas.it!, { root: { components: { schemas } }, dates: true });
      expect([p.name, p.output.safeParse(example).error?.issues]).toEqual([p.name, undefined]);
    }
  });

  it('is accepted by createRegistry and serves every procedure once', () => {
    const registry = createRegistry(procedures);
    expect(registry.size).toBe(procedures.length);
    expect(createProcedureRegistry().size).toBe(procedures.length);
  });

  it('holds the leads procedures with their methods and scopes', () => {
    const registry = createProcedureRegistry();
    const table = Object.fromEntries([...registry.values()].map((p) => [p.name, [p.method, p.scope, p.exposed]]));
    expect(table).toMatchObject({
      'leads.getAll': ['GET', 'leads.read', true],
      'leads.getById': ['GET', 'leads.read', true],
      'leads.create': ['POST', 'leads.create', true],
      'leads.update': ['POST', 'leads.update', true],
      'leads.delete': ['POST', 'leads.delete', true],
    });
  });
});
