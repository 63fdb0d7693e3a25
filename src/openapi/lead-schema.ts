import { LEAD_STATUSES } from '../domain/lead-status';
import { MAX_PAGE_SIZE } from '../procedures/shared/pagination.schema';
import { ref } from './envelopes';
import type { JsonSchema } from './json-schema';

const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const str = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };

/**
 * The Lead of the spec as the REST list answers it (plain JSON: timestamps as ISO strings).
 * Written by hand: procedures have no output schemas; the test checks a real answer against it.
 */
const LEAD: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: str,
    name: str,
    phones: { type: 'array', items: str, description: 'E.164, the primary first.' },
    emails: { type: 'array', items: str, description: 'Lowercased, the primary first.' },
    primaryPhone: nullable(str),
    primaryEmail: nullable(str),
    contactId: str,
    company: nullable(str),
    source: nullable(str),
    status: { type: 'string', enum: [...LEAD_STATUSES] },
    notes: nullable(str),
    nextCallAt: nullable(dateTime),
    createdAt: dateTime,
    updatedAt: dateTime,
    assignedToId: nullable({ ...str, description: 'An OrgMember id.' }),
    clientId: nullable(str),
  },
};
LEAD.required = Object.keys(LEAD.properties as object);

const PAGINATION: JsonSchema = {
  type: 'object',
  required: ['page', 'pageSize', 'total', 'totalPages', 'hasNextPage', 'hasPrevPage', 'nextCursor'],
  properties: {
    page: { type: ['integer', 'null'], minimum: 1, description: '1-indexed page just fetched; null when the page was reached by `cursor`.' },
    pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
    total: { type: 'integer', minimum: 0, description: 'Records matching the filters across all pages.' },
    totalPages: { type: 'integer', minimum: 1 },
    hasNextPage: { type: 'boolean', description: 'Walk on while this is true (not up to the first totalPages).' },
    hasPrevPage: { type: 'boolean' },
    nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page (an O(1) keyset walk); null on the last page.' },
  },
};

const LEAD_PAGE: JsonSchema = {
  type: 'object',
  required: ['data', 'pagination'],
  properties: { data: { type: 'array', items: ref('Lead'), maxItems: MAX_PAGE_SIZE }, pagination: ref('Pagination') },
};

export const leadSchemas: Record<string, JsonSchema> = { Lead: LEAD, Pagination: PAGINATION, LeadPage: LEAD_PAGE };
