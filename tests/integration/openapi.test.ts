import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import superjson from 'superjson';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createTestContext } from '../helpers/test-app';
import { createLead, createWorkspace } from '../helpers/factories';
import { listLeads } from '../helpers/leads-rest';
import { rpcGet } from '../helpers/rpc';
import { procedures, subscriptions } from '../../src/procedures';
import { createRegistry } from '../../src/rpc/registry';
import { scopesOf } from '../../src/rpc/define-procedure';
import { leadsGetAll } from '../../src/procedures/leads/get-all';
import { EVENT_TYPES } from '../../src/events/event-types';
import { eventSchemaName } from '../../src/procedures/events/typed-events.schema';

const ctx = createTestContext();
afterAll(() => ctx.close());

type Doc = {
  openapi: string; paths: Record<string, Record<string, any>>; webhooks: Record<string, Record<string, any>>; components: { schemas: Record<string, any>; securitySchemes: Record<string, any> };
};
let doc: Doc;
beforeAll(async () => {
  doc = (await request(ctx.app).get('/api/v1/openapi.json')).body;
});

const RPC = '/api/v1/rpc/';
const exposed = procedures.filter((p) => p.exposed === true);
const streamed = subscriptions.filter((s) => s.exposed === true);
const isStream = (op: any) => op.responses['200'].content['text/event-stream'] !== undefined;
/** The action endpoints: every RPC path but the subscriptions. */
const rpcOperations = () =>
  Object.entries(doc.paths)
    .filter(([path]) => path.startsWith(RPC))
    .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ name: path.slice(RPC.length), method: method.toUpperCase(), op })))
    .filter(({ op }) => !isStream(op));
const subscriptionOperations = () =>
  Object.entries(doc.paths)
    .filter(([path, item]) => path.startsWith(RPC) && item.get && isStream(item.get))
    .map(([path, item]) => ({ name: path.slice(RPC.length), op: item.get }));

const run = promisify(execFile);
const VALIDATOR_CLI = require.resolve('@seriousme/openapi-schema-validator/bin/validate-api-cli.js');

/** Runs the validator's own CLI: the package is ESM-only, which jest's CommonJS runtime cannot import. */
async function validateWithCli(document: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const { stdout } = await run(process.execPath, [VALIDATOR_CLI, file]).catch((err: { stdout: string }) => err);
    return JSON.parse(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Ajv over the document's component schemas, so real answers can be checked against them. */
function schemaValidator() {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('phone', true); // the document's own format: libphonenumber decides, no pattern can
  // The `#/components/schemas/...` references resolve inside a wrapper shaped like the document.
  ajv.addKeyword('components');
  ajv.addKeyword('paths');
  ajv.addKeyword('webhooks');
  // OpenAPI's own keyword (the Event union's `type` mapping); ajv checks the union by its oneOf.
  ajv.addKeyword('discriminator');
  ajv.addSchema({ $id: 'doc', components: doc.components, paths: doc.paths, webhooks: doc.webhooks }, 'doc');
  const pointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
  const check = (where: string, value: unknown) => {
    const validate = ajv.getSchema(`doc#/${where}`)!;
    return validate(value) ? [] : validate.errors;
  };
  return Object.assign((name: string, value: unknown) => check(`components/schemas/${pointer(name)}`, value), {
    /** Against an operation's documented answer for a status. */
    answer: (path: string, method: string, status: number, value: unknown) =>
      check(`paths/${pointer(path)}/${method}/responses/${status}/content/application~1json/schema`, value),
  });
}

describe('GET /api/v1/openapi.json', () => {
  it('answers 200 JSON without an Authorization header', async () => {
    const res = await request(ctx.app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.openapi).toMatch(/^3\.1\./);
    expect((await request(ctx.app).get('/api/v1/openapi.json').set('Authorization', 'Bearer not-a-key')).status).toBe(200);
  });

  it('names as its server the address it was fetched from (a generated client\'s default), or / for a Host that is not one', async () => {
    const at = async (host: string) => (await request(ctx.app).get('/api/v1/openapi.json').set('Host', host)).body.servers;
    expect(await at('api.example.com:8443')).toEqual([{ url: 'http://api.example.com:8443', description: expect.any(String) }]);
    expect(await at('[::1]:3000')).toEqual([expect.objectContaining({ url: 'http://[::1]:3000' })]);
    expect(await at('evil.example/"x')).toEqual([expect.objectContaining({ url: '/' })]);
    expect((await request(ctx.app).get('/api/v1/openapi.json')).headers.vary).toMatch(/\bHost\b/);
  });

  it('is a valid OpenAPI 3.1 document, and the validator does refuse a broken one', async () => {
    expect(await validateWithCli(doc)).toEqual({ valid: true });
    const broken = { ...doc, paths: { ...doc.paths, '/x': { get: { responses: { '200': { content: {} } } } } } };
    expect((await validateWithCli(broken)).valid).toBe(false);
  });

  it('holds component schemas that each compile as JSON Schema 2020-12 in strict mode', () => {
    const check = schemaValidator();
    for (const name of Object.keys(doc.components.schemas)) expect(() => check(name, {})).not.toThrow();
  });

  it('lists exactly the exposed procedures with their methods, and no app-only one such as apiKeys.list', () => {
    expect(procedures.some((p) => !p.exposed)).toBe(true);
    const listed = rpcOperations().map(({ name, method }) => `${method} ${name}`).sort();
    expect(listed).toEqual(exposed.map((p) => `${p.method} ${p.name}`).sort());
    expect(subscriptionOperations().map(({ name }) => name).sort()).toEqual(streamed.map((s) => s.name).sort());
    expect(Object.keys(doc.paths)).not.toContain('/api/v1/rpc/apiKeys.list');
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith(RPC))).toEqual(['/api/v1/leads', '/api/v1/leads/export', '/api/v1/leads/{id}', '/api/v1/leads/external/{externalId}', '/api/v1/imports', '/api/v1/imports/{id}', '/api/v1/imports/{id}/errors', '/api/v1/stream-tokens']);
  });

  it('names the required scope of every operation as x-required-scope, bearer security and in the description', () => {
    expect(doc.components).toMatchObject({ securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } });
    for (const { name, op } of rpcOperations()) {
      // Every scope the call needs (leads.upsert: two), the first as x-required-scope.
      const scopes = scopesOf(exposed.find((p) => p.name === name)!);
      expect([name, op['x-required-scope'], op.security, scopes.every((s) => op.description.includes(`\`${s}\``))]).toEqual([name, scopes[0], [{ bearerAuth: scopes }], true]);
      expect(op.tags).toEqual([name.split('.')[0]]);
    }
    expect(doc.paths['/api/v1/leads']!.get['x-required-scope']).toBe('leads.read');
    for (const { name, op } of subscriptionOperations()) {
      const scope = streamed.find((s) => s.name === name)!.scope;
      expect([name, op['x-required-scope'], op.security, op.description.includes(`\`${scope}\``)]).toEqual([name, scope, [{ bearerAuth: [scope] }, { streamToken: [scope] }], true]);
    }
  });

  it('describes each subscription: GET with its input, Last-Event-ID when tracked, the pre-stream errors, and a text/event-stream of its values', () => {
    expect(doc.components.securitySchemes.streamToken).toEqual(expect.objectContaining({ type: 'apiKey', in: 'query', name: 'token' }));
    const check = schemaValidator();
    for (const { name, op } of subscriptionOperations()) {
      const subscription = streamed.find((s) => s.name === name)!;
      expect([name, op.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)]).toEqual([name, subscription.tracked ? ['query:input', 'header:Last-Event-ID'] : ['query:input']]);
      expect(Object.keys(op.responses)).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);
      expect(Object.keys(op.responses['200'].content)).toEqual(['text/event-stream']);
      const events = op.responses['200'].content['text/event-stream'].schema.oneOf;
      expect(events.map((e: { title: string }) => e.title)).toEqual(['connected', 'value', 'ping', 'return', 'serialized-error']);
      expect(events[1].properties.data.contentSchema.properties.json).toEqual({ $ref: `#/components/schemas/${name}.output` });
      expect([name, 'id' in events[1].properties]).toEqual([name, subscription.tracked]);
      const example = JSON.parse(op.parameters[0].example);
      expect([name, check(`${name}.input`, example.json)]).toEqual([name, []]);
    }
    // A value is what the matching read answers: the typed Event, the stats of dashboard.getLeadStats.
    expect(doc.components.schemas['events.onEvent.output']).toEqual({ $ref: '#/components/schemas/Event' });
    expect(doc.components.schemas['dashboard.onLeadStats.output']).toEqual({ $ref: '#/components/schemas/dashboard.getLeadStats.output' });
    expect(doc.paths['/api/v1/stream-tokens']!.post.requestBody.content['application/json'].schema.properties.procedure.enum.sort()).toEqual(streamed.map((s) => s.name).sort());
  });

  it("has a webhook per event type whose body is that type's schema, and Event (events.getAll's and the stream's) is their union", () => {
    const check = schemaValidator();
    expect(Object.keys(doc.webhooks)).toEqual([...EVENT_TYPES]);
    const names = EVENT_TYPES.map(eventSchemaName);
    expect(doc.components.schemas.Event.oneOf).toEqual(names.map((n) => ({ $ref: `#/components/schemas/${n}` })));
    expect(doc.components.schemas.Event.discriminator.mapping['invoice.paid']).toBe('#/components/schemas/InvoicePaidEvent');
    for (const [i, type] of EVENT_TYPES.entries()) {
      const op = doc.webhooks[type]!.post;
      const body = op.requestBody.content['application/json'];
      expect([type, body.schema]).toEqual([type, { $ref: `#/components/schemas/${names[i]}` }]);
      expect([type, op.parameters.map((p: { name: string }) => p.name)]).toEqual([type, ['Workspace-Signature', 'Workspace-Event-Id', 'Workspace-Event-Type']]);
      expect([type, check(names[i]!, body.example), check('Event', body.example)]).toEqual([type, [], []]);
      expect([type, body.example.type]).toEqual([type, type]);
    }
    // data.object is the resource's own schema; the types that add details say which (lead.* and
    // contact.* may say `erased`: the person's fields are blank).
    const data = (name: string) => doc.components.schemas[name].properties.data.properties;
    expect(data('LeadStatusChangedEvent').object).toEqual({ $ref: '#/components/schemas/Lead' });
    expect(data('ContactUpdatedEvent').object).toEqual({ $ref: '#/components/schemas/Contact' });
    expect(Object.keys(data('ContactErasedEvent'))).toEqual(['object', 'leadIds', 'erased']);
    expect(Object.keys(data('LeadStatusChangedEvent'))).toEqual(['object', 'erased', 'from', 'to']);
    expect(Object.keys(data('LeadCallLoggedEvent'))).toEqual(['object', 'erased', 'call']);
    expect(data('LeadCallLoggedEvent').call).toEqual({ $ref: '#/components/schemas/LeadCall' });
    expect(data('InvoicePaidEvent').object).toEqual({ $ref: '#/components/schemas/Invoice' });
    expect(data('WebhookDisabledEvent').object).toEqual({ $ref: '#/components/schemas/WebhookEndpoint' });
    // The events.getAll answer's items are the union.
    expect(JSON.stringify(doc.components.schemas['events.getAll.output'])).toContain('"$ref":"#/components/schemas/Event"');
  });

  it('describes a read by its input query parameter (the envelope as JSON text) and a write by its body, both in the envelope', () => {
    const read = doc.paths['/api/v1/rpc/leads.getById']!.get;
    // A string whose content is JSON (OpenAPI 3.1), not `content: application/json`: generators send a string as it is.
    expect(read.parameters).toEqual([
      expect.objectContaining({
        name: 'input', in: 'query', required: true,
        schema: { type: 'string', contentMediaType: 'application/json', contentSchema: expect.objectContaining({ required: ['json'] }) },
        example: '{"json":{"id":"lead_3kTMd9VbX2qLr7NwY5pHcZ"}}',
      }),
    ]);
    expect(read.parameters[0].schema.contentSchema.properties.json).toEqual({ $ref: '#/components/schemas/leads.getById.input' });
    expect(doc.components.schemas['leads.getById.input']).toMatchObject({ type: 'object', required: ['id'], additionalProperties: false });
    expect(doc.paths['/api/v1/rpc/leads.getAll']!.get.parameters[0].required).toBe(false);

    const write = doc.paths['/api/v1/rpc/leads.create']!.post;
    expect(write.parameters).toEqual([expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false })]);
    expect(write.responses['200'].headers).toHaveProperty('Idempotent-Replayed');
    expect(read.responses['200'].headers).toBeUndefined();
    expect(write.requestBody.content['application/json'].schema.properties.json).toEqual({ $ref: '#/components/schemas/leads.create.input' });
    expect(Object.keys(write.responses)).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '422', '429', '500', '503']);
    const input = doc.components.schemas['leads.create.input'];
    expect(input.required).toEqual(['name', 'phone']);
    expect(JSON.stringify(input.properties.nextCallAt)).toContain('"format":"date-time"');
  });

  it('types every answer by its output schema, with examples that are valid against the schemas they illustrate', () => {
    const check = schemaValidator();
    for (const { name, method, op } of rpcOperations()) {
      const path = `${RPC}${name}`;
      const media = op.responses['200'].content['application/json'];
      expect([name, media.schema.properties.result.properties.data.properties.json.$ref]).toEqual([name, `#/components/schemas/${name}.output`]);
      expect([name, check.answer(path, method.toLowerCase(), 200, media.example)]).toEqual([name, []]);
      const input = method === 'GET' ? JSON.parse(op.parameters[0].example) : op.requestBody.content['application/json'].example;
      expect([name, check(`${name}.input`, input.json)]).toEqual([name, []]);
    }
    // Examples are declared on the schemas: realistic values, never text drawn from a pattern.
    const created = doc.paths['/api/v1/rpc/leads.create']!.post;
    expect(created.requestBody.content['application/json'].example.json).toMatchObject({ name: 'Ana Souza', phone: '+447400123456' });
    // A Date in an answer is an ISO string in `json`, named in superjson's `meta`.
    const lead = doc.paths['/api/v1/rpc/leads.getById']!.get.responses['200'].content['application/json'].example.result.data;
    expect(lead.meta.values).toMatchObject({ createdAt: ['Date'], updatedAt: ['Date'] });
    expect(new Date(lead.json.createdAt).toISOString()).toBe(lead.json.createdAt);
    expect(doc.components.schemas.SuperjsonMeta.description).toContain('["Date"]');
    expect(check('SuperjsonMeta', lead.meta)).toEqual([]);
    expect(check('SuperjsonMeta', { values: { createdAt: 'Date' } })).not.toEqual([]);
  });

  it('states the constraints the server enforces: formats, code lists, patterns and mutually exclusive fields', () => {
    const schemas = doc.components.schemas;
    const json = JSON.stringify;
    expect(json(schemas['leads.create.input'].properties.email)).toContain('"format":"email"');
    expect(schemas['leads.getAll.input'].not).toEqual({ properties: { page: {}, cursor: {} }, required: ['page', 'cursor'] });
    expect(json(schemas['invoices.create.input'])).toContain('"GBP"');
    expect(json(schemas['invoices.create.input'])).toMatch(/"enum":\["[A-Z]{3}"/);
    expect(json(schemas['dashboard.getLeadStats.input'].properties.timeZone)).toContain('"pattern"');
    // What PostgreSQL's text cannot store, as one pattern of a typed string; a required text's also says non-blank.
    expect(schemas['leads.update.input'].properties.notes.anyOf[0]).toMatchObject({ type: 'string', pattern: '^[^\\u0000\\uD800-\\uDFFF]*$' });
    expect(schemas['leads.create.input'].properties.name).toMatchObject({ type: 'string', pattern: expect.stringContaining('[^\\s\\u0000\\uD800-\\uDFFF]') });
    expect(json(schemas)).not.toContain('"allOf"');
  });

  it('links each create to the reads, updates and deletes of what it created', () => {
    const links = doc.paths['/api/v1/rpc/leads.create']!.post.responses['200'].links;
    expect(Object.keys(links).sort()).toEqual(expect.arrayContaining(['leads_getById', 'leads_update', 'leads_delete']));
    expect(links.leads_getById).toMatchObject({ operationId: 'leads.getById', parameters: { input: '{"json":{"id":"{$response.body#/result/data/json/id}"}}' } });
    expect(links.leads_delete).toMatchObject({ operationId: 'leads.delete', requestBody: { json: { id: '{$response.body#/result/data/json/id}' } } });
    const operationIds = new Set(rpcOperations().map(({ op }) => op.operationId));
    for (const { op } of rpcOperations()) {
      for (const link of Object.values((op.responses['200'].links ?? {}) as Record<string, { operationId: string }>)) expect(operationIds.has(link.operationId)).toBe(true);
    }
  });

  it('describes the REST leads list with its seven query parameters, the Lead page and the REST error body', () => {
    const op = doc.paths['/api/v1/leads']!.get;
    expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(['query:status', 'query:search', 'query:assignedToId', 'query:externalId', 'query:cursor', 'query:page', 'query:pageSize']);
    expect(op.parameters[0].schema.enum).toHaveLength(10);
    expect(op.parameters[6].schema).toMatchObject({ type: 'integer', minimum: 1, default: 50 });
    expect(op.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/LeadPage' });
    expect(op.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/RestError' });
  });

  it("matches the service's real answers and inputs: a REST page, a REST error, an RPC result, an RPC 400, a superjson input", async () => {
    const check = schemaValidator();
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id, { emails: ['a@example.com'], company: 'Acme', nextCallAt: new Date() });
    const page = await listLeads(ctx.app, ws.key, { status: 'NOT_CONTACTED', search: 'Lead', page: 1, pageSize: 5 });
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(1);
    expect(check('LeadPage', page.body)).toEqual([]);
    expect(check('LeadPage', { ...page.body, data: [{ ...page.body.data[0], status: 'NEW' }] })).not.toEqual([]);
    const restError = await listLeads(ctx.app, null);
    expect([restError.status, check('RestError', restError.body)]).toEqual([401, []]);

    const ok = await rpcGet(ctx.app, 'leads.getAll', {}, ws.key);
    expect([ok.status, check.answer('/api/v1/rpc/leads.getAll', 'get', 200, ok.body)]).toEqual([200, []]);
    expect(check.answer('/api/v1/rpc/leads.getAll', 'get', 200, { result: { data: { json: { data: [], pagination: {} } } } })).not.toEqual([]);
    const bad = await rpcGet(ctx.app, 'leads.getById', {}, ws.key);
    expect([bad.status, check('RpcError', bad.body)]).toEqual([400, []]);
    expect(check('leads.getById.input', {})).not.toEqual([]);
    const sent = superjson.serialize({ name: 'Ana', phone: '+44 20 7946 0018', nextCallAt: new Date() });
    expect(check('leads.create.input', sent.json)).toEqual([]);
  });

  it('marks a deprecated procedure as deprecated with its sunset and replacement', async () => {
    const old = { ...leadsGetAll, name: 'leads.list', deprecated: { since: '2026-01-01', sunset: '2026-09-01', replacement: 'leads.getAll' } };
    const custom = createTestContext({ registry: createRegistry([leadsGetAll, old]) });
    try {
      const { body } = await request(custom.app).get('/api/v1/openapi.json');
      expect(body.paths['/api/v1/rpc/leads.getAll'].get.deprecated).toBeUndefined();
      expect(body.paths['/api/v1/rpc/leads.list'].get).toMatchObject({ deprecated: true, 'x-sunset': '2026-09-01', 'x-replacement': 'leads.getAll' });
      expect(body.paths['/api/v1/rpc/leads.list'].get.description).toContain('use `leads.getAll` instead');
    } finally {
      await custom.close();
    }
  });
});

describe('GET /docs', () => {
  it('answers 200 HTML under its own CSP, loading only same-origin assets that are served', async () => {
    const res = await request(ctx.app).get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = res.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|unsafe-eval/);

    const urls = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/assets/docs.js']));
    expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    for (const url of urls) {
      expect(url).toMatch(/^\/(?!\/)/);
      const asset = await request(ctx.app).get(url);
      expect([url, asset.status]).toEqual([url, 200]);
    }
    const script = await request(ctx.app).get('/docs/assets/docs.js');
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.text).toContain("url: '/api/v1/openapi.json'");
  });

  it('serves only the Swagger UI files the page uses (404 for the package index that loads the Petstore)', async () => {
    const res = await request(ctx.app).get('/docs/assets/index.html');
    expect(res.status).toBe(404);
    expect((await request(ctx.app).get('/docs/assets/swagger-initializer.js')).status).toBe(404);
  });
});
