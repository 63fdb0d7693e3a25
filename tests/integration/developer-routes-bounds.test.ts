import request from 'supertest';
import { z } from 'zod';
import { createTestContext } from '../helpers/test-app';
import { createMember, createOrg } from '../helpers/factories';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';
import { playgroundRouteInputs } from '../../src/http/playground-route';
import { developerRouteInputs } from '../../src/http/developer-api-route';
import { MAX_ISSUES } from '../../src/errors/app-error';
import { TABLES } from '../../src/db/tables';

/**
 * Finding 5: the developer and playground routes bound every array and string, and a refusal
 * echoes a bounded part of the input. Before, 200,000 scopes (0.8 MB) answered a 19.5 MB 400.
 */

const ctx = createTestContext();
afterAll(() => ctx.close());

const keys = testJwtKeys;
/** A refusal is a few KB at most, however large or wrong the input. */
const SMALL = 8 * 1024;
const HUGE = 200_000;

async function developer() {
  const org = await createOrg(ctx.db, { features: ['DEVELOPER_API'] });
  const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
  const session = signMemberSession(keys.session, { memberId: member.id, orgId: org.id }).token;
  return { org, member, auth: `Bearer ${session}` };
}

function post(path: string, auth: string, body: string) {
  return request(ctx.app).post(path).set('Authorization', auth).set('Content-Type', 'application/json').send(body);
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await run();
  return [result, performance.now() - started];
}

type JsonSchema = { type?: unknown; properties?: Record<string, JsonSchema>; maxItems?: number; anyOf?: JsonSchema[] };

/** The top-level array fields of a body schema, with their maximum. */
function arrayFields(schema: z.ZodType): [string, number][] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return Object.entries(json.properties ?? {}).flatMap(([name, field]) => {
    const array = [field, ...(field.anyOf ?? [])].find((f) => f.type === 'array');
    return array ? [[name, array.maxItems ?? Infinity] as [string, number]] : [];
  });
}

const routeInputs = { ...playgroundRouteInputs, ...developerRouteInputs };
const arrayCases = Object.entries(routeInputs).flatMap(([route, parts]) => {
  const body = (parts as { body?: z.ZodType }).body;
  const [method, path] = route.split(' ') as [string, string];
  return body ? arrayFields(body).map(([field, max]) => [route, field, method, path.replace(/:\w+/g, 'key_x'), max] as const) : [];
});

describe('every array of every developer and playground route', () => {
  it('covers the scope lists of the playground token and of a new key', () => {
    expect(arrayCases.map(([route, field]) => `${route} ${field}`)).toEqual(
      expect.arrayContaining(['POST /api/v1/playground/token scopes', 'POST /developer/api/keys scopes']),
    );
  });

  it.each(arrayCases)('%s: %s of 200,000 strings (0.8 MB) is a 400 under 8 KB naming the limit, within a second', async (_route, field, _method, path, max) => {
    const dev = await developer();
    const [res, ms] = await timed(() => post(path, dev.auth, JSON.stringify({ [field]: Array.from({ length: HUGE }, () => 'a') })));

    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(SMALL);
    expect(res.body.error.issues).toEqual(expect.arrayContaining([{ path: [field], message: expect.stringContaining(`expected a list of 1 to ${max} scope names, got ${HUGE}`) }]));
    expect(ms).toBeLessThan(1000);
    expect(await ctx.db(TABLES.apiKeys).where({ org_id: dev.org.id })).toHaveLength(0);
  });

  it.each(arrayCases)('%s: %s of 200,000 numbers (200,000 wrong items) is a 400 under 8 KB', async (_route, field, _method, path) => {
    const dev = await developer();
    const res = await post(path, dev.auth, JSON.stringify({ [field]: Array.from({ length: HUGE }, (_, i) => i % 10) }));

    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(SMALL);
  });

  it.each(arrayCases)('%s: %s of exactly its maximum of one repeated scope is taken (and de-duplicated)', async (route, field, _method, path, max) => {
    const dev = await developer();
    const body = { name: 'many', [field]: Array.from({ length: max }, () => 'leads.read') };
    const res = await post(path, dev.auth, JSON.stringify(route.includes('playground') ? { [field]: body[field] } : body));

    expect(res.status).toBeLessThan(300);
    expect(res.body.scopes ?? res.body.key.scopes).toEqual(['leads.read']);
  });
});

describe('a refusal echoes a bounded part of the input', () => {
  const tenThousandUnknownFields = () => JSON.stringify(Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`field${i}`, i])));

  it.each([
    ['POST /api/v1/playground/token', '/api/v1/playground/token'],
    ['POST /developer/api/keys', '/developer/api/keys'],
  ])('%s: 10,000 unknown fields answer the first issues and how many more, under 8 KB', async (_label, path) => {
    const dev = await developer();
    const res = await post(path, dev.auth, tenThousandUnknownFields());

    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(SMALL);
    const issues = res.body.error.issues as { path: unknown[]; message: string }[];
    expect(issues).toEqual(expect.arrayContaining([{ path: ['field0'], message: 'unknown field' }, { path: ['field1'], message: 'unknown field' }]));
    expect(issues).toHaveLength(MAX_ISSUES + 1);
    expect(issues[MAX_ISSUES]!.message).toMatch(/^and \d+ more issues$/);
    expect(res.body.error.message).toMatch(/\(and \d+ more\)$/);
  });

  it('a 500,000-character unknown field name is cut short in the path and the message', async () => {
    const dev = await developer();
    const res = await post('/developer/api/keys', dev.auth, JSON.stringify({ name: 'x', scopes: ['leads.read'], ['k'.repeat(500_000)]: 1 }));

    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(SMALL);
    expect(res.body.error.issues).toEqual([{ path: [expect.stringMatching(/^k+… \(500000 characters\)$/)], message: 'unknown field' }]);
  });

  it('a 100 KB scope name is refused for its length, not echoed whole', async () => {
    const dev = await developer();
    const res = await post('/api/v1/playground/token', dev.auth, JSON.stringify({ scopes: ['s'.repeat(100_000)] }));

    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(SMALL);
    expect(res.body.error.issues).toEqual([{ path: ['scopes', 0], message: 'expected a scope name of at most 64 characters, e.g. leads.read, got 100000 characters' }]);
  });
});

describe('POST /developer/api/keys: the other fields', () => {
  it('refuses an expiry with 100,000 fraction digits by its length', async () => {
    const dev = await developer();
    const res = await post('/developer/api/keys', dev.auth, JSON.stringify({ name: 'x', scopes: ['leads.read'], expiresAt: `2099-01-01T00:00:00.${'1'.repeat(100_000)}Z` }));

    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(SMALL);
    expect(res.body.error.issues).toEqual([{ path: ['expiresAt'], message: expect.stringContaining('<=64 characters') }]);
  });
});

describe('POST /developer/api/keys/:id/revoke: the id', () => {
  it('answers 400 naming the id for a 10,000-character id, without echoing it', async () => {
    const dev = await developer();
    const res = await request(ctx.app).post(`/developer/api/keys/${'k'.repeat(10_000)}/revoke`).set('Authorization', dev.auth);

    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(1024);
    expect(res.body.error.issues).toEqual([{ path: ['id'], message: 'expected an id of at most 64 characters, got 10000 characters' }]);
  });
});
