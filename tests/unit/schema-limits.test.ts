import { z } from 'zod';
import { createProcedureRegistry } from '../../src/procedures';
import { leadsListQuery } from '../../src/procedures/leads/lead-list.schema';

/**
 * Hostile input (issue 7): every string a caller can send has a maximum length and every array a
 * maximum number of items, so no field takes an unbounded amount of memory, CPU or storage.
 * Generated from the registry, so a new procedure (or field) without bounds fails here, by name.
 */

type Node = Record<string, unknown>;

/** The JSON-pointer-like paths of every string without maxLength and every array without maxItems. */
function unboundedPaths(node: unknown, path: string): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => unboundedPaths(item, `${path}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const schema = node as Node;
  const found: string[] = [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const closed = 'enum' in schema || 'const' in schema;
  if (types.includes('string') && !closed && typeof schema.maxLength !== 'number') found.push(`${path || '/'} (string without maxLength)`);
  if (types.includes('array') && typeof schema.maxItems !== 'number') found.push(`${path || '/'} (array without maxItems)`);
  for (const [key, inner] of Object.entries(schema)) {
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    found.push(...unboundedPaths(inner, `${path}/${key}`));
  }
  return found;
}

function inputSchemaOf(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
}

const registry = createProcedureRegistry();

describe('input schemas bound every string and array', () => {
  it.each([...registry.values()].map((p) => [p.name, p] as const))('%s: every string has maxLength and every array maxItems', (_name, procedure) => {
    expect(unboundedPaths(inputSchemaOf(procedure.input), '')).toEqual([]);
  });

  it('GET /api/v1/leads: every query parameter has a maximum length', () => {
    expect(unboundedPaths(inputSchemaOf(leadsListQuery), '')).toEqual([]);
  });

  it('finds an unbounded string and array nested in a union and an array (the walker itself)', () => {
    const schema = z.strictObject({
      ok: z.string().max(3),
      tags: z.array(z.union([z.string(), z.strictObject({ n: z.number() })])).max(2),
      list: z.array(z.strictObject({ note: z.string().max(5) })),
      kind: z.enum(['A', 'B']),
    });
    expect(unboundedPaths(inputSchemaOf(schema), '')).toEqual([
      '/properties/tags/items/anyOf/0 (string without maxLength)',
      '/properties/list (array without maxItems)',
    ]);
  });
});
