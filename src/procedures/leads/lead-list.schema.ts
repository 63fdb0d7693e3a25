import { z } from 'zod';
import { LEAD_STATUSES } from '../../domain/lead-status';
import { toSearchTerm } from '../../domain/phone';
import type { LeadListFilters } from '../../db/leads';
import { enumOf, externalIdField, idOf, objectOf, text } from '../shared/fields';
import { pageFields, queryPageFields } from '../shared/pagination.schema';

/** Filters shared by `leads.getAll` and `GET /api/v1/leads`. */
const filterFields = {
  status: enumOf(LEAD_STATUSES).optional(),
  search: text(200, { example: 'Acme' }).optional(),
  /** A member's id, or `unassigned` for leads without one. */
  assignedToId: idOf('mem', { orUnassigned: true }).optional(),
  /** Only the lead with this external id (a list of at most one). */
  externalId: externalIdField.optional(),
  /** `pagination.nextCursor` of the previous page: a keyset walk instead of page numbers. */
  cursor: text(1000, { min: 1, what: 'the pagination.nextCursor of the previous page (text of 1 to 1000 characters)' }).optional(),
};

/** `page` has no default here: leaving it out is what allows a cursor (page 1 is applied later). */
function eitherPageOrCursor(value: { page?: number; cursor?: string }, ctx: z.RefinementCtx): void {
  if (value.page !== undefined && value.cursor !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'give either cursor or page, not both' });
  }
}

/** What JSON Schema can say of eitherPageOrCursor, for the OpenAPI document. */
const PAGE_OR_CURSOR = { not: { properties: { page: {}, cursor: {} }, required: ['page', 'cursor'] }, description: 'Filters and a page; give either `page` or `cursor`, not both.' };

export const leadsGetAllInput = objectOf({ ...filterFields, page: pageFields.page.unwrap().optional(), pageSize: pageFields.pageSize })
  .superRefine(eitherPageOrCursor)
  .meta(PAGE_OR_CURSOR)
  .prefault({});

/** The REST list's query string: the same filters, page numbers parsed from text. */
export const leadsListQuery = objectOf({ ...filterFields, page: queryPageFields.page.unwrap().optional(), pageSize: queryPageFields.pageSize })
  .superRefine(eitherPageOrCursor);

export type LeadsListInput = z.output<typeof leadsGetAllInput>;

/** Maps validated input to the query module's filters; a blank search is no filter. */
export function toLeadListFilters(input: Pick<LeadsListInput, 'status' | 'search' | 'assignedToId' | 'externalId'>): LeadListFilters {
  return {
    status: input.status,
    assignedToId: input.assignedToId,
    search: toSearchTerm(input.search),
    ...(input.externalId !== undefined && { externalId: input.externalId }),
  };
}

/**
 * A REST query as Express leaves it (a parameter given twice is an array): each parameter once,
 * refused alone before anything else is read, then `schema`.
 */
function restQuery<T extends z.ZodType>(schema: T) {
  return z
    .unknown()
    .superRefine((query, ctx) => {
      if (query === null || typeof query !== 'object') return;
      for (const [name, value] of Object.entries(query)) {
        if (typeof value !== 'string') ctx.addIssue({ code: 'custom', path: [name], message: 'give this parameter once' });
      }
    })
    .pipe(schema);
}

/** The REST list's query string as Express leaves it. */
export const leadsRestListInput = restQuery(leadsListQuery);

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;

/**
 * `GET /api/v1/leads/export`'s query: the list's filters (every one of them, so a filter added to
 * the list reaches the export), no page or cursor, and the format (CSV unless asked).
 */
const { cursor: _cursor, ...exportFilterFields } = filterFields;
export const leadsExportQuery = objectOf({ ...exportFilterFields, format: enumOf(EXPORT_FORMATS).default('csv') });

export const leadsExportInput = restQuery(leadsExportQuery);
