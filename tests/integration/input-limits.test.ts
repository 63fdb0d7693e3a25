import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { createTestContext, testDatabaseUrl } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { expectRpcError } from '../helpers/rpc-edge-fixtures';
import { killIfRunning, startServer, type ServerProcess } from '../helpers/server-process';
import { createRawClient } from '../helpers/raw-http';
import { createProcedureRegistry } from '../../src/procedures';
import { inputJsonSchema, type JsonSchema } from '../../src/openapi/json-schema';
import { MAX_GET_INPUT_BYTES, MAX_JSON_DEPTH } from '../../src/rpc/input-limits';
import { QUOTED_TEXT_CHARS } from '../../src/procedures/shared/expected';
import { createHttpServer } from '../../src/server/http-server';

/**
 * The limits on what a call may send (issue 7), each answered in the envelope: the body size
 * (413), the GET `input` length, the nesting depth, and the maximum length of every string and
 * number of items of every array of every exposed procedure's input (400 naming the field).
 */

const ctx = createTestContext();
let ws: Awaited<ReturnType<typeof createWorkspace>>;
// Started as index.ts starts it: supertest's own server keeps Node's 16 KB header limit.
let server: Server;
beforeAll(async () => {
  ws = await createWorkspace(ctx.db);
  server = await listen(createHttpServer(ctx.app));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await ctx.close();
});

async function listen(started: Server): Promise<Server> {
  await new Promise((resolve) => started.listen(0, '127.0.0.1', () => resolve(undefined)));
  return started;
}

const MB = 1024 * 1024;
const LEAD = '{"json":{"name":"Padded","phone":"+442079460018"}}';

function post(name: string, body: string) {
  return request(server).post(`/api/v1/rpc/${name}`).set('Authorization', `Bearer ${ws.key}`).set('Content-Type', 'application/json').send(body);
}

function getWithInput(name: string, input: string) {
  return request(server).get(`/api/v1/rpc/${name}?input=${encodeURIComponent(input)}`).set('Authorization', `Bearer ${ws.key}`);
}

/** A JSON text padded with spaces (which JSON allows) to exactly `bytes` bytes. */
function padded(json: string, bytes: number): string {
  return json.slice(0, -1) + ' '.repeat(bytes - Buffer.byteLength(json)) + json.slice(-1);
}

describe('request body size (BODY_LIMIT, 1 MB by default)', () => {
  it('answers 413 in the envelope for a body one byte over 1 MB, and stores nothing', async () => {
    const res = await post('leads.create', padded(LEAD, MB + 1));
    expect(expectRpcError(res, 'PAYLOAD_TOO_LARGE', 'leads.create').message).toMatch(/larger than the limit/);
    expect(Number((await ctx.db('leads').where({ org_id: ws.org.id }).count({ n: '*' }).first())?.n)).toBe(0);
  });

  it('accepts a body of exactly 1 MB', async () => {
    const res = await post('leads.create', padded(LEAD, MB));
    expect(res.status).toBe(200);
  });
});

describe(`GET input length (at most ${MAX_GET_INPUT_BYTES} bytes of UTF-8)`, () => {
  it(`accepts an input of exactly ${MAX_GET_INPUT_BYTES} bytes`, async () => {
    const res = await getWithInput('leads.getAll', padded('{"json":{}}', MAX_GET_INPUT_BYTES));
    expect(res.status).toBe(200);
  });

  it('answers 400 naming the limit for one byte more', async () => {
    const res = await getWithInput('leads.getAll', padded('{"json":{}}', MAX_GET_INPUT_BYTES + 1));
    const error = expectRpcError(res, 'BAD_REQUEST', 'leads.getAll');
    expect(error.message).toBe(`The "input" query parameter is ${MAX_GET_INPUT_BYTES + 1} bytes long; the limit is ${MAX_GET_INPUT_BYTES}`);
  });

  it('counts bytes, not characters: 2,731 three-byte characters are over the limit', async () => {
    const res = await getWithInput('leads.getAll', JSON.stringify({ json: { search: '€'.repeat(2_731) } }));
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.getAll').message).toMatch(/"input" query parameter is \d+ bytes long/);
  });
});

describe('a started server answers an input over the limit itself, not with a bare 431', () => {
  const target = () => `/api/v1/rpc/leads.getAll?input=${encodeURIComponent(padded('{"json":{}}', 20_000))}`;
  it('answers a 20 KB input with the 400 envelope through createHttpServer (the server index.ts starts)', async () => {
    const client = createRawClient(server);
    try {
      const res = await client.send({ method: 'GET', target: target(), headers: { Authorization: `Bearer ${ws.key}` } });
      expectRpcError({ status: res.status, body: JSON.parse(res.text) }, 'BAD_REQUEST', 'leads.getAll');
    } finally {
      client.close();
    }
  });

  it("gets Node's bare 431 for the same request from a server with Node's default header limit (why the limit is raised)", async () => {
    const plain = await listen(createServer(ctx.app));
    const client = createRawClient(plain);
    try {
      const res = await client.send({ method: 'GET', target: target(), headers: { Authorization: `Bearer ${ws.key}` } });
      expect({ status: res.status, text: res.text }).toEqual({ status: 431, text: '' });
    } finally {
      client.close();
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  describe('the service as `npm start` runs it', () => {
    let service: ServerProcess | undefined;
    afterAll(() => killIfRunning(service));

    it('answers a 20 KB input with the 400 envelope', async () => {
      service = await startServer({ DATABASE_URL: testDatabaseUrl() });
      const res = await fetch(`http://127.0.0.1:${service.port}${target()}`, { headers: { Authorization: `Bearer ${ws.key}` } });
      expectRpcError({ status: res.status, body: await res.json() }, 'BAD_REQUEST', 'leads.getAll');
    }, 90_000);
  });
});

describe(`nesting depth (at most ${MAX_JSON_DEPTH} levels)`, () => {
  it('answers a 1 MB body of "[" with a 400 naming the depth limit', async () => {
    const res = await post('leads.create', '['.repeat(MB));
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.create').message).toBe(`The envelope nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
  });

  it('answers a GET input nested one level too deep with the same 400', async () => {
    const res = await getWithInput('leads.getAll', `{"json":{"search":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}}`);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.getAll').message).toMatch(/more than 64 levels deep/);
  });

  it('reads a field nested to the limit and refuses it for its type, not its depth', async () => {
    const res = await getWithInput('leads.getAll', `{"json":{"search":${'['.repeat(MAX_JSON_DEPTH - 2)}${']'.repeat(MAX_JSON_DEPTH - 2)}}}`);
    expect(expectRpcError(res, 'BAD_REQUEST', 'leads.getAll').data.issues).toEqual([{ path: ['search'], message: 'expected text of at most 200 characters, got a list of 1' }]);
  });
});

describe('strings PostgreSQL could not store as sent', () => {
  it.each([
    ['an unpaired surrogate', '"Ana \\ud800"', 'expected well-formed Unicode text (no unpaired surrogates)'],
    ['a NUL character', '"Ana \\u0000"', 'expected text without the NUL character (\\u0000)'],
  ])('refuses a name with %s with a 400 naming the field, and stores nothing', async (_label, name, message) => {
    const before = await ctx.db('contacts').where({ org_id: ws.org.id }).count({ n: '*' }).first();
    const res = await post('contacts.create', `{"json":{"name":${name}}}`);
    expect(expectRpcError(res, 'BAD_REQUEST', 'contacts.create').data.issues).toEqual([{ path: ['name'], message }]);
    expect(await ctx.db('contacts').where({ org_id: ws.org.id }).count({ n: '*' }).first()).toEqual(before);
  });

  it('accepts emoji (paired surrogates) and reads them back as sent', async () => {
    const res = await post('contacts.create', '{"json":{"name":"Ana \\ud83d\\ude00 👩‍👩‍👧"}}');
    expect(res.status).toBe(200);
    expect(res.body.result.data.json.name).toBe('Ana 😀 👩‍👩‍👧');
  });
});

/** Every field of an input schema with a maximum: `[path, schema]`, array items as index 0. */
function boundedFields(schema: JsonSchema, path: (string | number)[] = []): [(string | number)[], JsonSchema][] {
  const branches = Array.isArray(schema.anyOf) ? (schema.anyOf as JsonSchema[]) : [schema];
  const bounded = branches.find((b) => typeof b.maxLength === 'number' || typeof b.maxItems === 'number');
  const own: [(string | number)[], JsonSchema][] = bounded && path.length > 0 ? [[path, bounded]] : [];
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const items = schema.type === 'array' && schema.items ? boundedFields(schema.items as JsonSchema, [...path, 0]) : [];
  return [...own, ...properties.flatMap(([key, inner]) => boundedFields(inner, [...path, key])), ...items];
}

/** An input whose only content is the field at `path`, one over its maximum. */
function overTheLimit(path: (string | number)[], field: JsonSchema): unknown {
  const leaf = typeof field.maxItems === 'number' ? Array.from({ length: field.maxItems + 1 }, () => 'x') : 'x'.repeat((field.maxLength as number) + 1);
  return path.reduceRight<unknown>((inner, key) => (typeof key === 'number' ? [inner] : { [key]: inner }), leaf);
}

const limitCases = [...createProcedureRegistry().values()]
  .filter((p) => p.exposed)
  .flatMap((p) => boundedFields(inputJsonSchema(p.input)).map(([path, field]) => [p.name, path.join('.'), p, path, field] as const));

describe('every string and array of every exposed procedure has a maximum, refused with a 400 naming the field', () => {
  it('covers the fields that matter (invoice items and their descriptions, phones, emails, search, notes)', () => {
    const named = limitCases.map(([name, field]) => `${name}:${field}`);
    expect(named).toEqual(expect.arrayContaining([
      'invoices.create:items', 'invoices.create:items.0.description', 'leads.create:phones', 'leads.create:emails',
      'leads.getAll:search', 'contacts.getAll:search', 'clients.update:notes', 'tasks.create:description',
    ]));
  });

  it.each(limitCases)('%s: %s', async (name, _field, procedure, path, field) => {
    const envelope = JSON.stringify({ json: overTheLimit(path, field) });
    const res = procedure.method === 'GET' ? await getWithInput(name, envelope) : await post(name, envelope);
    const error = expectRpcError(res, 'BAD_REQUEST', name);
    // Every too-long list or text is measured back ("expected a list of at most 20 ..., got 21"), short text quoted.
    const length = (field.maxLength as number) + 1;
    const text = length > QUOTED_TEXT_CHARS ? `${length} characters` : JSON.stringify('x'.repeat(length));
    const limit = typeof field.maxItems === 'number' ? `got ${field.maxItems + 1}` : `got ${text}`;
    // A date (a union of a Date and ISO strings) answers the union's own message for any bad string.
    const message = field.format ? expect.any(String) : expect.stringContaining(limit);
    expect(error.data.issues).toEqual(expect.arrayContaining([{ path, message }]));
  });
});

describe('a refusal echoes a bounded part of the input (finding 5)', () => {
  const SMALL = 8 * 1024;

  it('answers 10,000 unknown fields with the first 20 issues and how many more, under 8 KB', async () => {
    const input = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`field${i}`, i]));
    const res = await post('leads.create', JSON.stringify({ json: { name: 'Ana', phone: '+442079460018', ...input } }));

    const error = expectRpcError(res, 'BAD_REQUEST', 'leads.create');
    expect(res.text.length).toBeLessThan(SMALL);
    expect(error.data.issues).toHaveLength(21);
    expect(error.data.issues?.[0]).toEqual({ path: ['field0'], message: 'unknown field; expected only the fields name, phone, email, phones, emails, company, source, notes, status, nextCallAt, assignedToId, externalId' });
    expect(error.data.issues?.[20]).toEqual({ path: [], message: 'and 9980 more issues' });
    expect(error.message).toMatch(/\(and 9997 more\)$/);
  });

  it('answers 100 invoice lines each missing its three fields (300 issues) with the first 20 and how many more, under 8 KB', async () => {
    const res = await post('invoices.create', JSON.stringify({ json: { clientId: 'cli_x', currency: 'GBP', dueDate: '2030-01-31', items: Array.from({ length: 100 }, () => ({})) } }));

    const error = expectRpcError(res, 'BAD_REQUEST', 'invoices.create');
    expect(res.text.length).toBeLessThan(SMALL);
    expect(error.data.issues?.[0]?.path).toEqual(['items', 0, 'description']);
    // 300 issues of the schema, and the clientId naming no client (checked though the items failed).
    expect(error.data.issues?.[20]).toEqual({ path: [], message: 'and 281 more issues' });
  });

  it('cuts a 500,000-character unknown field name short in the path and the message', async () => {
    const res = await post('leads.create', JSON.stringify({ json: { name: 'Ana', phone: '+442079460018', ['k'.repeat(500_000)]: 1 } }));

    const error = expectRpcError(res, 'BAD_REQUEST', 'leads.create');
    expect(res.text.length).toBeLessThan(SMALL);
    expect(error.data.issues).toEqual([{ path: [expect.stringMatching(/^k+… \(500000 characters\)$/)], message: 'unknown field; expected only the fields name, phone, email, phones, emails, company, source, notes, status, nextCallAt, assignedToId, externalId' }]);
  });
  it('cuts a 50,000-character unknown procedure name or path short in the message and the envelope\'s path', async () => {
    const name = `leads.${'x'.repeat(50_000)}`;
    const rpc = await request(server).get(`/api/v1/rpc/${name}`).set('Authorization', `Bearer ${ws.key}`);
    expect(rpc.status).toBe(404);
    expect(rpc.text.length).toBeLessThan(SMALL);
    expect(rpc.body.error.json.data.path).toMatch(/^leads\.x+… \(50006 characters\)$/);
    const rest = await request(server).get(`/api/v1/${'y'.repeat(50_000)}`).set('Authorization', `Bearer ${ws.key}`);
    expect(rest.status).toBe(404);
    expect(rest.text.length).toBeLessThan(SMALL);
  });
});
