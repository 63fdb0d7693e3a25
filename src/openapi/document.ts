import type { z } from 'zod';
import type { Registry, SubscriptionRegistry } from '../rpc/registry';
import { inputJsonSchema, outputComponentSchemas, type JsonSchema } from './json-schema';
import { envelopeSchemas } from './envelopes';
import { NAMED_OUTPUTS } from './named-outputs';
import { inputSchemaName, outputSchemaName, procedureOperation, RPC_PATH_PREFIX } from './procedure-operation';
import { leadsRestPathItems } from './leads-rest-operation';
import { importsRestPathItems } from './imports-rest-operation';
import { withExamples } from './examples';
import { createLinks } from './links';
import { STREAM_TOKEN_SCHEME, subscriptionOperation } from './subscription-operation';
import { STREAM_TOKEN_SCHEMA, streamTokensPathItem } from './stream-tokens-operation';
import { eventUnionSchema, eventWebhooks } from './event-webhooks';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/**
 * Where the document says the service is: replaced, as served, by the origin it was fetched from
 * (docs-route.ts), so a generated client's default base URL is this service, not `/`, which only a
 * browser on the same origin can use.
 */
export const SERVER_URL_PLACEHOLDER = 'https://service.invalid';

const DESCRIPTION = `The workspace's data and actions over HTTP.

- **Action endpoints** \`${RPC_PATH_PREFIX}/<router>.<procedure>\`: reads are GET with the input in the \`input\` query parameter, writes are POST with a JSON body; both wrap the input as \`{"json": <input>}\` and answer \`{"result":{"data":{"json": <output>, "meta"?: ...}}}\` (the tRPC wire format with the superjson transformer, so Dates round-trip).
- **Subscriptions** such as \`${RPC_PATH_PREFIX}/events.onEvent\`: GET with the input as a read's, answered as a \`text/event-stream\` that stays open (tRPC's \`httpSubscriptionLink\`); \`events.onEvent\` resumes after \`Last-Event-ID\` with no event missed.
- **Webhooks**: each event type, as an endpoint subscribed to it receives it (\`webhooks\` below): the same typed \`Event\` that events.getAll answers.
- **REST leads** \`/api/v1/leads\`, \`/api/v1/leads/{id}\` and \`/api/v1/leads/external/{externalId}\`: plain JSON, no envelope, timestamps as ISO 8601 strings; \`/api/v1/leads/export\` streams every matching lead from one snapshot as CSV or NDJSON.
- **Authentication**: \`Authorization: Bearer <API key or playground token>\`; never cookies. Each operation names the scope it requires. Action endpoints also require the workspace to be on the maximum tier.
- **Dates**: in an answer's \`json\` a Date is an ISO 8601 string, and \`meta.values\` lists its path as \`["Date"]\` so a superjson client revives it; a plain-JSON caller reads the string and may ignore \`meta\`. Inputs take Dates the same way, or as ISO 8601 strings with a time zone.`;

const TAG_DESCRIPTIONS: Record<string, string> = {
  leads: 'People to call, their contact details and where the calling stands; also the plain-REST `/api/v1/leads` routes.',
  contacts: 'The people behind leads and clients: names, phones, emails, company.',
  clients: 'Customers: organisations a lead was converted into.',
  tasks: "Things to do, with a due date, an assignee and what they concern.",
  invoices: "A client's invoices, their lines and their status (draft, sent, paid, void).",
  orgMembers: "The workspace's members (read only).",
  dashboard: 'Figures over leads and calls for a period.',
  events: 'What changed in the workspace, in order: the feed webhooks deliver.',
  webhooks: 'Endpoints that receive events, their signing secrets and their deliveries.',
  imports: 'Import jobs: a CSV or NDJSON file of leads written in the background, with progress and per-row errors.',
};

/**
 * The OpenAPI 3.1 document of exactly the exposed procedures and subscriptions (plus the REST
 * leads routes and the stream tokens), and the webhooks, generated from the registries so it
 * cannot drift from what the service answers.
 */
export function buildOpenApiDocument(registry: Registry, subscriptions: SubscriptionRegistry): Record<string, unknown> {
  const exposed = [...registry.values()].filter((p) => p.exposed === true);
  const streamed = [...subscriptions.values()].filter((s) => s.exposed === true);
  const named = new Map<z.ZodType, string>(NAMED_OUTPUTS);
  const aliases: Record<string, JsonSchema> = {};
  for (const procedure of exposed) {
    if (!procedure.output) continue;
    // A procedure answering a named resource gets a component of its own name referring to it.
    const resource = named.get(procedure.output);
    if (resource) aliases[outputSchemaName(procedure)] = { $ref: `#/components/schemas/${resource}` };
    else named.set(procedure.output, outputSchemaName(procedure));
  }
  // A subscription's value is named as a read's answer: events.onEvent's is the Event.
  for (const subscription of streamed) {
    const resource = named.get(subscription.output);
    if (resource) aliases[outputSchemaName(subscription)] = { $ref: `#/components/schemas/${resource}` };
    else named.set(subscription.output, outputSchemaName(subscription));
  }
  const schemas: Record<string, JsonSchema> = {
    ...envelopeSchemas, ...outputComponentSchemas(named), ...aliases, Event: eventUnionSchema(), StreamToken: STREAM_TOKEN_SCHEMA,
  };
  const paths: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const procedure of [...exposed, ...streamed]) schemas[inputSchemaName(procedure)] = inputJsonSchema(procedure.input);
  for (const procedure of exposed) {
    const links = createLinks(procedure, exposed, (p) => schemas[inputSchemaName(p)]!);
    paths[`${RPC_PATH_PREFIX}/${procedure.name}`] = { [procedure.method.toLowerCase()]: procedureOperation(procedure, links) };
  }
  for (const subscription of streamed) paths[`${RPC_PATH_PREFIX}/${subscription.name}`] = { get: subscriptionOperation(subscription) };
  Object.assign(paths, leadsRestPathItems(), importsRestPathItems(), streamTokensPathItem(subscriptions));
  const document = {
    openapi: '3.1.1',
    // The contract's version is the path's `/api/v1`; changes within it are additive (docs/versioning.md).
    // OpenAPI 3.1 needs an SPDX identifier or a URL: a proprietary licence is a LicenseRef- expression.
    info: { title: 'Workspace API', version: 'v1', description: DESCRIPTION, license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } },
    servers: [{ url: SERVER_URL_PLACEHOLDER, description: 'This service: the address this document was fetched from' }],
    tags: [...new Set([...[...exposed, ...streamed].map((p) => p.name.split('.')[0]!), 'leads'])].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: eventWebhooks(),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`wsk_...`) or a playground test token; its scopes must include the operation\'s `x-required-scope`.',
        },
        streamToken: STREAM_TOKEN_SCHEME,
      },
      schemas,
    },
  };
  return withExamples(document);
}
