import type { Registry } from '../rpc/registry';
import { inputJsonSchema, type JsonSchema } from './json-schema';
import { envelopeSchemas } from './envelopes';
import { leadSchemas } from './lead-schema';
import { inputSchemaName, procedureOperation, RPC_PATH_PREFIX } from './procedure-operation';
import { leadsRestOperation } from './leads-rest-operation';

export const OPENAPI_PATH = '/api/v1/openapi.json';

const DESCRIPTION = `The workspace's data and actions over HTTP.

- **Action endpoints** \`${RPC_PATH_PREFIX}/<router>.<procedure>\`: reads are GET with the input in the \`input\` query parameter, writes are POST with a JSON body; both wrap the input as \`{"json": <input>}\` and answer \`{"result":{"data":{"json": <output>}}}\` (the tRPC wire format with the superjson transformer, so Dates round-trip).
- **Authentication**: \`Authorization: Bearer <API key or playground token>\`; never cookies. Each operation names the scope it requires. Action endpoints also require the workspace to be on the maximum tier.
- **Dates**: a superjson client sends them with \`meta\`; a plain-JSON caller may send an ISO 8601 string with a time zone.`;

/**
 * The OpenAPI 3.1 document of exactly the exposed procedures (plus the REST leads list),
 * generated from the registry so it cannot drift from what the service answers.
 */
export function buildOpenApiDocument(registry: Registry): Record<string, unknown> {
  const exposed = [...registry.values()].filter((p) => p.exposed === true);
  const paths: Record<string, unknown> = {};
  const inputSchemas: Record<string, JsonSchema> = {};
  for (const procedure of exposed) {
    paths[`${RPC_PATH_PREFIX}/${procedure.name}`] = { [procedure.method.toLowerCase()]: procedureOperation(procedure) };
    inputSchemas[inputSchemaName(procedure)] = inputJsonSchema(procedure.input);
  }
  paths['/api/v1/leads'] = { get: leadsRestOperation() };
  return {
    openapi: '3.1.1',
    // The contract's version is the path's `/api/v1`; changes within it are additive (docs/versioning.md).
    info: { title: 'Workspace API', version: 'v1', description: DESCRIPTION },
    servers: [{ url: '/', description: 'This service' }],
    tags: [...new Set([...exposed.map((p) => p.name.split('.')[0]!), 'leads'])].map((name) => ({ name })),
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`wsk_...`) or a playground test token; its scopes must include the operation\'s `x-required-scope`.',
        },
      },
      schemas: { ...envelopeSchemas, ...leadSchemas, ...inputSchemas },
    },
  };
}
