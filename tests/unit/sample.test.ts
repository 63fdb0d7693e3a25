import { z } from 'zod';
import { composeSample } from '../../src/openapi/sample';
import { inputJsonSchema } from '../../src/openapi/json-schema';
import { leadsCreateInput } from '../../src/procedures/leads/create';

describe('composeSample', () => {
  it('takes each required property from examples[0], then default, then the first enum value', () => {
    const sample = composeSample({
      type: 'object',
      properties: {
        id: { type: 'string', examples: ['lead_3kTMd9VbX2qLr7NwY5pHcZ', 'lead_other'], default: 'ignored' },
        page: { type: 'integer', default: 1 },
        status: { type: 'string', enum: ['OPEN', 'DONE'] },
      },
      required: ['id', 'page', 'status'],
    });

    expect(sample).toEqual({ id: 'lead_3kTMd9VbX2qLr7NwY5pHcZ', page: 1, status: 'OPEN' });
  });

  it('includes an optional property only when it has examples (not for a default or an enum)', () => {
    const sample = composeSample({
      type: 'object',
      properties: {
        name: { type: 'string', examples: ['Ana Souza'] },
        email: { type: 'string', examples: ['ana@example.com'] },
        page: { type: 'integer', default: 1 },
        status: { type: 'string', enum: ['OPEN'] },
        notes: { type: 'string' },
      },
      required: ['name'],
    });

    expect(sample).toEqual({ name: 'Ana Souza', email: 'ana@example.com' });
  });

  it('reads the example of a nullable property from its non-null branch', () => {
    const sample = composeSample({
      type: 'object',
      properties: {
        nextCallAt: { anyOf: [{ type: 'string', format: 'date-time', examples: ['2026-12-03T10:00:00Z'] }, { type: 'null' }] },
        company: { anyOf: [{ type: 'null' }, { type: 'string', examples: ['Acme Ltd'] }] },
      },
      required: ['nextCallAt'],
    });

    expect(sample).toEqual({ nextCallAt: '2026-12-03T10:00:00Z', company: 'Acme Ltd' });
  });

  it('composes nested objects and arrays, one item for a list that needs one or whose items have an example', () => {
    const sample = composeSample({
      type: 'object',
      properties: {
        items: {
          type: 'array',
          minItems: 1,
          items: { type: 'object', properties: { description: { type: 'string', examples: ['Consulting'] }, quantity: { type: 'integer', minimum: 1 } }, required: ['description', 'quantity'] },
        },
        events: { type: 'array', items: { type: 'string', enum: ['*', 'lead.created'] } },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['items', 'events', 'tags'],
    });

    expect(sample).toEqual({ items: [{ description: 'Consulting', quantity: 1 }], events: ['*'], tags: [] });
  });

  it('leaves an undocumented required value blank rather than drawing text from its pattern', () => {
    const sample = composeSample({
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$', minLength: 8 }, count: { type: 'integer' }, on: { type: 'boolean' } },
      required: ['code', 'count', 'on'],
    });

    expect(sample).toEqual({ code: '', count: 0, on: false });
  });

  it('composes the input object itself even when it has a default of {}', () => {
    const sample = composeSample({ type: 'object', default: {}, properties: { search: { type: 'string', examples: ['Ana'] } } });

    expect(sample).toEqual({ search: 'Ana' });
  });

  it('asks includeOptional about each optional example, and leaves out the ones it refuses', () => {
    const schema = {
      type: 'object',
      properties: { assignedToId: { type: 'string', examples: ['mem_3kTMd9VbX2qLr7NwY5pHcZ'] }, source: { type: 'string', examples: ['Website form'] } },
    };

    expect(composeSample(schema, { includeOptional: (name) => name !== 'assignedToId' })).toEqual({ source: 'Website form' });
  });

  it('follows a local $ref and stops on a cycle', () => {
    const sample = composeSample({
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' } },
      required: ['node'],
      $defs: { node: { type: 'object', properties: { label: { type: 'string', examples: ['root'] }, child: { $ref: '#/$defs/node' } }, required: ['label', 'child'] } },
    });

    expect((sample as { node: { label: string } }).node.label).toBe('root');
    expect(JSON.stringify(sample).length).toBeLessThan(2_000);
  });

  it('gives every required field of a zod input a value from its documented examples (leads.create)', () => {
    const schema = inputJsonSchema(leadsCreateInput);
    const sample = composeSample(schema) as Record<string, unknown>;

    expect(Object.keys(sample)).toEqual(expect.arrayContaining(schema.required as string[]));
    for (const name of schema.required as string[]) expect(sample[name]).toMatch(/\S/);
    expect(sample.email).toBe('ana@example.com');
  });

  it('answers a scalar input from its own examples', () => {
    expect(composeSample(inputJsonSchema(z.string().meta({ examples: ['hello'] })))).toBe('hello');
  });
});
