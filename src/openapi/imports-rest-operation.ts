import { idOf } from '../procedures/shared/fields';
import { inputJsonSchema } from './json-schema';
import { ref } from './envelopes';
import { restErrorResponses } from './errors';
import { LEAD_COLUMNS, MAX_IMPORT_BYTES } from '../imports/import-format';

const ID_PARAMETER = { name: 'id', in: 'path', required: true, description: "The import's id.", schema: inputJsonSchema(idOf('imp')) };

const READ_ERRORS = ['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'] as const;

function operation(id: string, summary: string, scopes: string[], lines: string[]): Record<string, unknown> {
  return {
    operationId: id,
    summary,
    description: [...lines, '', `**Required scope${scopes.length > 1 ? 's' : ''}:** ${scopes.map((s) => `\`${s}\``).join(', ')}`].join('\n'),
    tags: ['imports'],
    security: [{ bearerAuth: scopes }],
    'x-required-scope': scopes[0],
  };
}

/**
 * The REST import routes (src/http/imports-rest): the upload (the file is the body, so it has no
 * procedure), the import by id, and its errors file. docs/importing-and-exporting.md says more.
 */
export function importsRestPathItems(): Record<string, Record<string, unknown>> {
  const upload = {
    ...operation('createImport', 'Starts an import job from a CSV or NDJSON file (plain REST)', ['imports.create', 'leads.create'], [
      'The file is the body, read as it streams (up to 100 MB). A file that cannot be read is a 400 naming the line; each row is then checked and written in the background as `leads.create` (or `leads.upsert`: `mode=upsert`, which also needs `leads.update`) would, and a row that fails is listed by `GET /api/v1/imports/{id}/errors`.',
      `CSV: a header row naming the columns (${LEAD_COLUMNS.join(', ')}); \`phones\` and \`emails\` hold several values separated by \`;\`. NDJSON: one \`leads.create\` input per line.`,
    ]),
    parameters: [
      { name: 'resource', in: 'query', required: true, description: 'What the rows are.', schema: { type: 'string', enum: ['leads'] } },
      { name: 'mode', in: 'query', required: false, description: 'create: a new lead per row; upsert: by `externalId`, create or change.', schema: { type: 'string', enum: ['create', 'upsert'], default: 'create' } },
      { name: 'dryRun', in: 'query', required: false, description: 'Check and count every row, write nothing.', schema: { type: 'string', enum: ['true', 'false'], default: 'false' } },
    ],
    requestBody: {
      required: true,
      content: {
        'text/csv': { schema: { type: 'string', contentMediaType: 'text/csv', maxLength: MAX_IMPORT_BYTES } },
        'application/x-ndjson': { schema: { type: 'string', contentMediaType: 'application/x-ndjson', maxLength: MAX_IMPORT_BYTES } },
      },
    },
    responses: {
      '202': {
        description: 'Accepted: the import, queued.',
        headers: { Location: { description: "The import's URL, `/api/v1/imports/{id}`.", schema: { type: 'string' } } },
        content: { 'application/json': { schema: ref('Import') } },
      },
      ...restErrorResponses(['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'TOO_MANY_REQUESTS', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'], {
        BAD_REQUEST: 'The file cannot be read (the message names the line), or the query is wrong (`issues`).',
        PAYLOAD_TOO_LARGE: 'The file is over 100 MB.',
        UNSUPPORTED_MEDIA_TYPE: 'The body is not `text/csv` or `application/x-ndjson` in UTF-8, or is compressed.',
        TOO_MANY_REQUESTS: 'The key is over its rate limit, or the workspace has as many imports waiting as it may (`Retry-After`).',
      }),
    },
  };
  const getImport = {
    ...operation('getImport', 'One import job (plain REST)', ['imports.read'], ['As `imports.getById` answers it, timestamps as ISO 8601 strings.']),
    parameters: [ID_PARAMETER],
    responses: {
      '200': { description: 'The import.', content: { 'application/json': { schema: ref('Import') } } },
      ...restErrorResponses([...READ_ERRORS], { NOT_FOUND: 'No import with this id in the workspace.' }),
    },
  };
  const errors = {
    ...operation('getImportErrors', "An import's failed rows, as CSV", ['imports.read'], [
      'One line per problem: `line,field,message,row` (the file\'s line where the row starts, the field, the message `leads.create` gives, the row as sent). Cells that a spreadsheet would run as a formula start with `\'`.',
    ]),
    parameters: [ID_PARAMETER],
    responses: {
      '200': { description: 'The failed rows.', content: { 'text/csv': { schema: { type: 'string', contentMediaType: 'text/csv' } } } },
      ...restErrorResponses([...READ_ERRORS], { NOT_FOUND: 'No import with this id in the workspace.' }),
    },
  };
  return {
    '/api/v1/imports': { post: upload },
    '/api/v1/imports/{id}': { get: getImport },
    '/api/v1/imports/{id}/errors': { get: errors },
  };
}
