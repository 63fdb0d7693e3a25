import { leadsGetAllInput } from '../procedures/leads/lead-list.schema';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../procedures/shared/pagination.schema';
import { inputJsonSchema, type JsonSchema } from './json-schema';
import { ref } from './envelopes';
import { restListErrorResponses } from './errors';

const DESCRIPTIONS: Record<string, string> = {
  status: 'Exact-match filter on the lead status.',
  search: "Case-insensitive match against the contact's name, emails, phones or company; a blank term is no filter.",
  assignedToId: 'An OrgMember id, or `unassigned` for leads with no owner.',
  page: '1-indexed page (not together with `cursor`).',
  cursor: 'The `pagination.nextCursor` of the previous page: walks the list in its order, each lead once (not together with `page`).',
  pageSize: `Items per page, 1 to ${MAX_PAGE_SIZE}; larger values are clamped to ${MAX_PAGE_SIZE}.`,
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

export function leadsRestOperation(): Record<string, unknown> {
  return {
    operationId: 'listLeads',
    summary: "A page of the workspace's leads (plain REST)",
    description: [
      'Ordered by `nextCallAt` ascending, then `createdAt` descending. Filters apply before paging, so `pagination.total` counts matches only.',
      'To read everything, start at page 1 and go on while `hasNextPage` is true, de-duplicating by `id`.',
      'Plain JSON: no envelope, timestamps as ISO 8601 strings. Unknown or repeated parameters are a 400.',
      '',
      '**Required scope:** `leads.read`',
    ].join('\n'),
    tags: ['leads'],
    security: [{ bearerAuth: ['leads.read'] }],
    'x-required-scope': 'leads.read',
    parameters: queryParameters(),
    responses: {
      '200': { description: 'The page.', content: { 'application/json': { schema: ref('LeadPage') } } },
      ...restListErrorResponses(),
    },
  };
}
