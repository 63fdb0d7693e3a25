import type { Db } from './knex';
import * as leadsQueries from './queries/leads.queries';
import type { Lead, LeadListFilters, ListPosition } from './queries/leads.queries';
import { decodeLeadCursor, encodeLeadCursor, type CursorScope, type LeadSortKey } from './lead-cursor';
import { toCursorPage, type CursorPage } from './pagination';

/** Page mode (`page`, default 1) or cursor mode (`cursor`); the input schema refuses both at once. */
export interface LeadsPageRequest {
  page?: number;
  cursor?: string;
  pageSize: number;
}

/** Where the page starts, and how to turn its last sort key into the next cursor (bound to these filters). */
function positionOf(orgId: string, filters: LeadListFilters, request: LeadsPageRequest) {
  const scope: CursorScope = { orgId, status: filters.status, assignedToId: filters.assignedToId, search: filters.search?.text };
  const { pageSize } = request;
  const page = request.cursor === undefined ? (request.page ?? 1) : null;
  const position: ListPosition =
    request.cursor === undefined ? { page: page ?? 1, pageSize } : { after: decodeLeadCursor(request.cursor, scope), pageSize };
  const cursorAfter = (next: LeadSortKey | null) => (next ? encodeLeadCursor(next, scope) : null);
  return { page, pageSize, position, cursorAfter };
}

/** One answer of `leads.getAll`: the same page as the REST list, with Lead objects (Dates as Dates). */
export async function listLeadsPage(db: Db, orgId: string, filters: LeadListFilters, request: LeadsPageRequest): Promise<CursorPage<Lead>> {
  const { page, pageSize, position, cursorAfter } = positionOf(orgId, filters, request);
  const { leads, total, next } = await leadsQueries.list(db, orgId, filters, position);
  return toCursorPage(leads, total, { page, pageSize }, cursorAfter(next));
}

/**
 * One answer of `GET /api/v1/leads` as its JSON text, in pieces to be sent one after another
 * (send-json.ts): the same page and wrapper as `listLeadsPage`, with each lead as PostgreSQL
 * rendered it (plain JSON, dates as ISO strings).
 */
export async function renderLeadsPageJson(db: Db, orgId: string, filters: LeadListFilters, request: LeadsPageRequest): Promise<string[]> {
  const { page, pageSize, position, cursorAfter } = positionOf(orgId, filters, request);
  const { leadsJson, total, next } = await leadsQueries.listAsJson(db, orgId, filters, position);
  const { pagination } = toCursorPage([], total, { page, pageSize }, cursorAfter(next));
  return ['{"data":[', leadsJson, `],"pagination":${JSON.stringify(pagination)}}`];
}
