import { createSecretKey } from 'node:crypto';
import type { Router } from 'express';
import { z } from 'zod';
import { createProcedureRegistry } from '../../src/procedures';
import { leadsListQuery } from '../../src/procedures/leads/lead-list.schema';
import { KNOWN_SCOPES } from '../../src/auth/scopes';
import { MAX_SCOPES } from '../../src/procedures/shared/scope-fields';
import { playgroundRouteInputs, playgroundRouter } from '../../src/http/playground-route';
import { developerRouteInputs, developerRouter } from '../../src/http/developer-api-route';
import type { RouteInputs } from '../../src/http/route-inputs';
import type { Db } from '../../src/db/knex';

/**
 * Finding 5 (unbounded developer routes): every string and array of every input the service reads
 * is bounded — the action procedures, the REST leads list, and the developer and playground
 * routes. The routes are found by walking the routers themselves, so a new route that reads input
 * without declaring a schema fails here, and so does a new unbounded field, by path.
 */

type Node = Record<string, unknown>;

/** Keywords whose values are schemas, or lists or maps of schemas (JSON Schema 2020-12). */
// Not `not`: what it holds is refused (`page` with `cursor`), so it bounds nothing a caller sends.
const SCHEMA_KEYWORDS = new Set(['items', 'additionalProperties', 'propertyNames', 'contains', 'unevaluatedProperties']);
const SCHEMA_LIST_KEYWORDS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/** Every place in a JSON Schema that lets a caller send an unbounded amount, as `path (why)`. */
function unboundedPaths(schema: unknown, path = ''): string[] {
  if (typeof schema === 'boolean') return schema && path.endsWith('/additionalProperties') ? [`${path} (any extra field)`] : [];
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as Node;
  const at = path || '/';
  const found: string[] = [];
  const closed = 'enum' in node || 'const' in node;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  const keywords = Object.keys(node).filter((k) => !['description', 'title', 'default', 'examples', '$schema', 'x-fixed-size'].includes(k));
  if (keywords.length === 0 && !node['x-fixed-size']) found.push(`${at} (accepts anything)`);
  if (types.includes('string') && !closed && typeof node.maxLength !== 'number' && !node['x-fixed-size']) found.push(`${at} (string without maxLength)`);
  if (types.includes('array') && typeof node.maxItems !== 'number') found.push(`${at} (array without maxItems)`);
  const open = node.additionalProperties !== undefined && node.additionalProperties !== false;
  if (types.includes('object') && open && !isBoundedKey(node.propertyNames)) found.push(`${at} (record keys without maxLength)`);
  for (const [key, inner] of Object.entries(node)) {
    if (SCHEMA_KEYWORDS.has(key)) found.push(...unboundedPaths(inner, `${path}/${key}`));
    if (SCHEMA_LIST_KEYWORDS.has(key)) (inner as unknown[]).forEach((item, i) => found.push(...unboundedPaths(item, `${path}/${key}/${i}`)));
    if (SCHEMA_MAP_KEYWORDS.has(key)) for (const [name, item] of Object.entries(inner as Node)) found.push(...unboundedPaths(item, `${path}/${key}/${name}`));
  }
  return found;
}

function isBoundedKey(names: unknown): boolean {
  if (names === null || typeof names !== 'object') return false;
  const node = names as Node;
  return typeof node.maxLength === 'number' || 'enum' in node || 'const' in node;
}

/**
 * What a caller sends, before transforms. A `z.date()` is marked fixed-size: it reaches a schema
 * only as a Date revived by superjson, whatever the length of the text it was revived from.
 */
function inputSchemaOf(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema }) => {
      if (zodSchema._zod.def.type === 'date') Object.assign(jsonSchema, { type: 'string', format: 'date-time', 'x-fixed-size': true });
    },
  });
}

/** `METHOD /path` of every route a router registers, nested routers included. */
function routesOf(router: Router, prefix = ''): string[] {
  const layers = (router as unknown as { stack: Layer[] }).stack;
  return layers.flatMap((layer) => {
    if (layer.route) return Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${prefix}${layer.route!.path}`);
    const nested = (layer.handle as { stack?: unknown }).stack;
    if (!Array.isArray(nested)) return [];
    const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    return routesOf(layer.handle as unknown as Router, prefix + mount);
  });
}
interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle: unknown;
  rawPath?: unknown;
}

const fakeDeps = {
  db: {} as Db,
  registry: createProcedureRegistry(),
  jwtKeys: { session: createSecretKey(Buffer.from('s'.repeat(32))), token: createSecretKey(Buffer.from('t'.repeat(32))) },
  readAccess: async () => undefined,
};

const routeInputs: RouteInputs = { ...playgroundRouteInputs, ...developerRouteInputs };
const routeSchemas = Object.entries(routeInputs).flatMap(([route, parts]) =>
  Object.entries(parts).map(([part, schema]) => [`${route} ${part}`, schema as z.ZodType] as const),
);
const registry = createProcedureRegistry();

describe('every input of every route bounds its strings, arrays and record keys', () => {
  it.each([...registry.values()].map((p) => [p.name, p.input] as const))('procedure %s', (_name, input) => {
    expect(unboundedPaths(inputSchemaOf(input))).toEqual([]);
  });

  it('GET /api/v1/leads query', () => {
    expect(unboundedPaths(inputSchemaOf(leadsListQuery))).toEqual([]);
  });

  it.each(routeSchemas)('%s', (_name, schema) => {
    expect(unboundedPaths(inputSchemaOf(schema))).toEqual([]);
  });

  it('declares the inputs of every route the developer and playground routers register, and no route they lack', () => {
    const registered = [...routesOf(playgroundRouter(fakeDeps, '1mb')), ...routesOf(developerRouter(fakeDeps, '1mb'))].sort();
    expect(registered).toEqual(Object.keys(routeInputs).sort());
    expect(registered).toEqual(expect.arrayContaining(['POST /api/v1/playground/token', 'POST /developer/api/keys', 'POST /developer/api/keys/:id/revoke']));
  });

  it('finds every kind of unbounded input (the walker itself)', () => {
    const schema = z.strictObject({
      ok: z.string().max(3),
      tags: z.array(z.union([z.string(), z.strictObject({ n: z.number() })])).max(2),
      list: z.array(z.strictObject({ note: z.string().max(5) })),
      kind: z.enum(['A', 'B']),
      when: z.date(),
      stamp: z.iso.datetime(),
      labels: z.record(z.string(), z.string().max(5)),
      tidy: z.record(z.string().max(10), z.number()),
      blob: z.unknown(),
      loose: z.looseObject({ a: z.number() }),
    });
    expect(unboundedPaths(inputSchemaOf(schema))).toEqual([
      '/properties/tags/items/anyOf/0 (string without maxLength)',
      '/properties/list (array without maxItems)',
      '/properties/stamp (string without maxLength)',
      '/properties/labels (record keys without maxLength)',
      '/properties/labels/propertyNames (string without maxLength)',
      '/properties/blob (accepts anything)',
      '/properties/loose (record keys without maxLength)',
      '/properties/loose/additionalProperties (accepts anything)',
    ]);
  });
});

describe('scope lists', () => {
  it(`MAX_SCOPES (${MAX_SCOPES}) is at least the number of scopes a key or token may hold`, () => {
    expect(KNOWN_SCOPES.size).toBeLessThanOrEqual(MAX_SCOPES);
  });

  it.each([
    ['POST /api/v1/playground/token', playgroundRouteInputs['POST /api/v1/playground/token']?.body],
    ['POST /developer/api/keys', developerRouteInputs['POST /developer/api/keys']?.body],
    ['apiKeys.create', registry.get('apiKeys.create')!.input],
  ])('%s takes at most MAX_SCOPES scopes', (_name, schema) => {
    const json = inputSchemaOf(schema as z.ZodType) as { properties: { scopes: { maxItems?: number; anyOf?: { maxItems?: number }[] } } };
    const scopes = json.properties.scopes;
    expect(scopes.maxItems ?? scopes.anyOf?.find((b) => b.maxItems)?.maxItems).toBe(MAX_SCOPES);
  });
});
