import { externalIdField, idOf } from '../procedures/shared/fields';
import { leadsExportQuery, leadsGetAllInput } from '../procedures/leads/lead-list.schema';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../procedures/shared/pagination.schema';
import { inputJsonSchema, type JsonSchema } from './json-schema';
import { ref } from './envelopes';
import { restErrorResponses, restListErrorResponses } from './errors';
import { IDEMPOTENCY_KEY_PARAMETER, IDEMPOTENT_REPLAYED_HEADER } from './idempotency';
import { leadsCreateInput } from '../procedures/leads/create';
import { leadsUpdateInput } from '../procedures/leads/update';
import { leadsUpsertInput } from '../procedures/leads/upsert';
import type { ErrorCode } from '../errors/error-codes';

const DESCRIPTIONS: Record<string, string> = {
  status: 'Exact-match filter on the lead status.',
  search: "Case-insensitive match against the contact's name, emails, phones or company; a blank term is no filter.",
  assignedToId: 'An OrgMember id, or `unassigned` for leads with no owner.',
  externalId: 'Only the lead holding this external id (a page of at most one).',
  page: '1-indexed page (not together with `cursor`).',
  cursor: 'The `pagination.nextCursor` of the previous page: walks the list in its order, each lead once (not together with `page`).',
  pageSize: `Items per page, 1 to ${MAX_PAGE_SIZE}; larger values are clamped to ${MAX_PAGE_SIZE}.`,
  format: '`csv` (the default) or `ndjson`.',
};

/**
 * The query parameters, from the schema `leads.getAll` shares with this route (the REST route
 * reads the same fields from text), so the two cannot drift apart.
 */
function queryParameters(): JsonSchema[] {
  const properties = (inputJsonSchema(leadsGetAllInput).properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, schema]) => {
    const described = name === 'pageSize' ? { ...schema, default: DEFAULT_PAGE_SIZE } : schema;
    return { name, in: 'query', required: false, description: DESCRIPTIONS[name], schema: described };
  });
}

/** The export's query parameters: the list's filters and `format`, from the route's own schema. */
function exportParameters(): JsonSchema[] {
  const properties = (inputJsonSchema(leadsExportQuery).properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, schema]) => ({ name, in: 'query', required: false, description: DESCRIPTIONS[name], schema }));
}

/** `GET /api/v1/leads/export`: a file, streamed, in one of two media types. */
export function leadsExportOperation(): Record<string, unknown> {
  const file = { type: 'string', description: 'The whole export, streamed.' };
  return {
    operationId: 'exportLeads',
    summary: "Every lead the filters match, as CSV or NDJSON, from one snapshot",
    description: [
      "The list's filters and order, without pages: every matching lead once, as the workspace stood when the export started (writes made while it streams are not in it), so its row count is the list's `pagination.total` at that moment.",
      '`format=ndjson`: one Lead a line, exactly as `GET /api/v1/leads` writes each item. `format=csv` (the default): a header row of the Lead\'s field names, then one row per lead; `phones` and `emails` joined with `;`, nulls as empty cells, timestamps in ISO 8601. A cell a person typed that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is written quoted after a single quote (`\'+442079460000`), so a spreadsheet shows it as text (OWASP).',
      'Gzipped when `Accept-Encoding` accepts gzip. A reader that goes away ends the export; one that reads nothing for 60 s is cut off. Counts as 10 requests against the key\'s rate limit; at most 4 exports run at once per instance (429 beyond).',
      '',
      '**Required scope:** `leads.read`',
    ].join('\n'),
    tags: ['leads'],
    security: [{ bearerAuth: ['leads.read'] }],
    'x-required-scope': 'leads.read',
    parameters: exportParameters(),
    responses: {
      '200': {
        description: 'The export, streamed (chunked).',
        headers: {
          'Content-Disposition': { description: 'attachment; filename="leads-YYYY-MM-DD.csv" (or .ndjson)', schema: { type: 'string' } },
          'Content-Encoding': { description: '`gzip` when the request accepted it.', schema: { type: 'string', enum: ['gzip'] } },
          Vary: { description: 'Accept-Encoding', schema: { type: 'string' } },
        },
        content: {
          'text/csv': { schema: file, example: 'id,name,phones,...\nlead_...,"Ada Lovelace","\'+442079460018",...\n' },
          'application/x-ndjson': { schema: file, example: '{"id":"lead_...","name":"Ada Lovelace",...}\n' },
        },
      },
      ...restListErrorResponses(),
    },
  };
}

export function leadsRestOperation(): Record<string, unknown> {
  return {
    operationId: 'listLeads',
    summary: "A page of the workspace's leads (plain REST)",
    description: [
      'Ordered by `nextCallAt` ascending, then `createdAt` descending. Filters apply before paging, so `pagination.total` counts matches only.',
      'To read everything, start at page 1 and go on while `hasNextPage` is true, de-duplicating by `id`.',
      'Plain JSON: no envelope, timestamps as ISO 8601 strings. Unknown or repeated parameters are a 400, and so are `page` and `cursor` together.',
      '',
      '**Required scope:** `leads.read`',
    ].join('\n'),
    tags: ['leads'],
    security: [{ bearerAuth: ['leads.read'] }],
    'x-required-scope': 'leads.read',
    // OpenAPI has no way to say two parameters exclude each other: named here for tools (the contract test reads it).
    'x-mutually-exclusive-parameters': [['page', 'cursor']],
    parameters: queryParameters(),
    responses: {
      '200': { description: 'The page.', content: { 'application/json': { schema: ref('LeadPage') } } },
      ...restListErrorResponses(),
    },
  };
}

/** What a REST write may answer besides its success. */
const WRITE_ERRORS: ErrorCode[] = [
  'BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE',
  'UNPROCESSABLE_CONTENT', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE',
];

/** The path's id: the same field `leads.getById` takes as `id`. */
const ID_PARAMETER = { name: 'id', in: 'path', required: true, description: "The lead's id.", schema: inputJsonSchema(idOf('lead')) };

const ETAG_HEADER = {
  ETag: { description: "The lead's version, a strong quoted tag: send it as `If-Match` to update or delete only that version.", schema: { type: 'string' } },
};

function conditionParameter(name: 'If-Match' | 'If-None-Match', description: string): Record<string, unknown> {
  return { name, in: 'header', required: false, description, schema: { type: 'string' }, example: '"q0B6zPq3TwK1c9YfVb2xWg"' };
}

const IF_MATCH = conditionParameter(
  'If-Match',
  "Write only if the lead is still this version: its `ETag` (or `*`). Another lead's tag or a stale one is a 412 and nothing is written.",
);

/** The JSON Schema of `schema`'s input without the fields the REST route takes elsewhere (path, headers). */
function bodySchema(schema: Parameters<typeof inputJsonSchema>[0], leftOut: string[]): JsonSchema {
  const { properties = {}, required = [], ...rest } = inputJsonSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  const kept = required.filter((name) => !leftOut.includes(name));
  return {
    ...rest,
    properties: Object.fromEntries(Object.entries(properties).filter(([name]) => !leftOut.includes(name))),
    ...(kept.length > 0 ? { required: kept } : {}),
  };
}

function jsonBody(schema: JsonSchema): Record<string, unknown> {
  return { required: true, content: { 'application/json': { schema } } };
}

const leadAnswer = (description: string, headers: Record<string, unknown>) => ({
  description,
  headers,
  content: { 'application/json': { schema: ref('Lead') } },
});

function operation(id: string, summary: string, scope: string, lines: string[], alsoScopes: string[] = []): Record<string, unknown> {
  const scopes = [scope, ...alsoScopes];
  const required = scopes.length === 1 ? `**Required scope:** \`${scope}\`` : `**Required scopes:** ${scopes.map((s) => `\`${s}\``).join(' and ')}`;
  return {
    operationId: id,
    summary,
    description: [...lines, '', required].join('\n'),
    tags: ['leads'],
    security: [{ bearerAuth: scopes }],
    'x-required-scope': scope,
  };
}

/** The path's external id: the field `leads.upsert` takes as `externalId`, percent-encoded in the path. */
const EXTERNAL_ID_PARAMETER = {
  name: 'externalId', in: 'path', required: true,
  description: 'Your own id for the lead, percent-encoded (a `/` as `%2F`): 1 to 255 printable characters.',
  schema: inputJsonSchema(externalIdField),
};

const SAME_RULES = 'Plain JSON, timestamps as ISO 8601 strings; the same field rules and messages as the action endpoint';

/**
 * The REST lead routes: `GET|POST /api/v1/leads` and `GET|PATCH|DELETE /api/v1/leads/{id}`. Bodies
 * are described from the inputs of the procedures the routes run, so the two cannot drift apart.
 */
export function leadsRestPathItems(): Record<string, Record<string, unknown>> {
  const createLead = {
    ...operation('createLead', 'Creates a lead and its contact (plain REST)', 'leads.create', [`${SAME_RULES} \`leads.create\`.`]),
    parameters: [IDEMPOTENCY_KEY_PARAMETER],
    requestBody: jsonBody(inputJsonSchema(leadsCreateInput)),
    responses: {
      '201': leadAnswer('Created: the lead.', {
        Location: { description: "The new lead's URL, `/api/v1/leads/{id}`.", schema: { type: 'string' } },
        ...ETAG_HEADER,
        ...IDEMPOTENT_REPLAYED_HEADER,
      }),
      ...restErrorResponses(WRITE_ERRORS, { NOT_FOUND: 'A referenced record (`assignedToId`) is not in this workspace.', FORBIDDEN: 'The key lacks the `leads.create` scope.' }),
    },
  };
  const getLead = {
    ...operation('getLead', 'One lead (plain REST)', 'leads.read', ['Plain JSON, timestamps as ISO 8601 strings.']),
    parameters: [
      ID_PARAMETER,
      conditionParameter('If-None-Match', 'The `ETag` of the copy the caller holds (or `*`): while the lead is still that version the answer is 304 with no body.'),
    ],
    responses: {
      '200': leadAnswer('The lead.', ETAG_HEADER),
      '304': { description: 'Not modified: the lead is still the version `If-None-Match` named.', headers: ETAG_HEADER },
      ...restErrorResponses(['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'], {
        BAD_REQUEST: 'The id is not a valid id (`issues` names it).',
        FORBIDDEN: 'The key lacks the `leads.read` scope.',
        NOT_FOUND: 'No lead with this id in the workspace.',
      }),
    },
  };
  const updateLead = {
    ...operation('updateLead', 'Changes the given fields of a lead (plain REST)', 'leads.update', [
      `Absent fields stay, \`null\` clears. ${SAME_RULES} \`leads.update\`; the id is the path's, and the version check is \`If-Match\` (not \`expectedUpdatedAt\`).`,
    ]),
    parameters: [ID_PARAMETER, IF_MATCH, IDEMPOTENCY_KEY_PARAMETER],
    requestBody: jsonBody(bodySchema(leadsUpdateInput, ['id', 'expectedUpdatedAt'])),
    responses: {
      '200': leadAnswer('The lead as it now is.', { ...ETAG_HEADER, ...IDEMPOTENT_REPLAYED_HEADER }),
      ...restErrorResponses([...WRITE_ERRORS, 'PRECONDITION_FAILED'], {
        FORBIDDEN: 'The key lacks the `leads.update` scope.',
        NOT_FOUND: 'No lead with this id in the workspace, or a referenced record (`assignedToId`) is not in it.',
      }),
    },
  };
  const deleteLead = {
    ...operation('deleteLead', 'Deletes a lead; its contact stays (plain REST)', 'leads.delete', ['Answers 204 with no body.']),
    parameters: [ID_PARAMETER, IF_MATCH, IDEMPOTENCY_KEY_PARAMETER],
    responses: {
      '204': { description: 'Deleted.', headers: IDEMPOTENT_REPLAYED_HEADER },
      ...restErrorResponses(
        ['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'PRECONDITION_FAILED', 'UNPROCESSABLE_CONTENT', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'],
        {
          BAD_REQUEST: 'The id or the `Idempotency-Key` is not valid.',
          FORBIDDEN: 'The key lacks the `leads.delete` scope.',
          NOT_FOUND: 'No lead with this id in the workspace.',
          CONFLICT: 'A call with the same `Idempotency-Key` is still in progress (retry).',
        },
      ),
    },
  };
  const upsertLead = {
    ...operation('upsertLeadByExternalId', 'Creates or changes the lead holding an external id (plain REST)', 'leads.create', [
      `The body is \`leads.create\`'s fields. No lead holds the id: one is created (201, \`Location\`). One does: it is changed as \`leads.upsert\` changes it (given fields replace, absent ones stay; 200). ${SAME_RULES} \`leads.upsert\`; the external id is the path's, the version check \`If-Match\`.`,
      'With `If-Match`, only the lead holding the id at that version is changed; when no lead holds the id the answer is 412 and nothing is created (leave `If-Match` out to create).',
    ], ['leads.update']),
    parameters: [EXTERNAL_ID_PARAMETER, IF_MATCH, IDEMPOTENCY_KEY_PARAMETER],
    requestBody: jsonBody(bodySchema(leadsUpsertInput, ['externalId', 'expectedUpdatedAt'])),
    responses: {
      '200': leadAnswer('Changed: the lead as it now is.', { ...ETAG_HEADER, ...IDEMPOTENT_REPLAYED_HEADER }),
      '201': leadAnswer('Created: the lead.', {
        Location: { description: "The new lead's URL, `/api/v1/leads/{id}`.", schema: { type: 'string' } },
        ...ETAG_HEADER,
        ...IDEMPOTENT_REPLAYED_HEADER,
      }),
      ...restErrorResponses([...WRITE_ERRORS, 'PRECONDITION_FAILED'], {
        BAD_REQUEST: 'The external id or a field is not valid (`issues` names it), or the body carries `externalId` or `expectedUpdatedAt`.',
        FORBIDDEN: 'The key lacks the `leads.create` or the `leads.update` scope.',
        NOT_FOUND: 'A referenced record (`assignedToId`) is not in this workspace.',
        CONFLICT: 'The status change is not allowed (a converted lead), or a call with the same `Idempotency-Key` is in progress.',
        PRECONDITION_FAILED: 'The lead is not the version `If-Match` named, or no lead holds the external id.',
      }),
    },
  };
  return {
    '/api/v1/leads': { get: leadsRestOperation(), post: createLead },
    '/api/v1/leads/export': { get: leadsExportOperation() },
    '/api/v1/leads/{id}': { get: getLead, patch: updateLead, delete: deleteLead },
    '/api/v1/leads/external/{externalId}': { put: upsertLead },
  };
}
