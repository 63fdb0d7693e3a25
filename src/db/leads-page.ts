import type { Db } from './knex';
import * as leadsQueries from './queries/leads.queries';
import type { Lead, LeadListFilters } from './queries/leads.queries';
import { decodeLeadCursor, encodeLeadCursor, type CursorScope } from './lead-cursor';
import { toCursorPage, type CursorPage } from './pagination';

/** Page mode (`page`, default 1) or cursor mode (`cursor`); the input schema refuses both at once. */
export interface LeadsPageRequest {
  page?: number;
  cursor?: string;
  pageSize: number;
}

/** One answer of `GET /api/v1/leads` and `leads.getAll`: the same function serves both. */
export async function listLeadsPage(
  db: Db,
  orgId: string,
  filters: LeadListFilters,
  request: LeadsPageRequest,
): Promise<CursorPage<Lead>> {
  const scope: CursorScope = { orgId, status: filters.status, assignedToId: filters.assignedToId, search: filters.search?.text };
  const { pageSize } = request;
  const page = request.cursor === undefined ? (request.page ?? 1) : null;
  const position =
    request.cursor === undefined ? { page: page ?? 1, pageSize } : { after: decodeLeadCursor(request.cursor, scope), pageSize };
  const { leads, total, next } = await leadsQueries.list(db, orgId, filters, position);
  const nextCursor = next ? encodeLeadCursor(next, scope) : null;
  return toCursorPage(leads, total, { page, pageSize }, nextCursor);
}
