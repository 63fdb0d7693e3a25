import pg from 'pg';
import { longStatementRows, type Db } from '../knex';
import type { HotReads } from '../hot-reads';
import { offsetOf, toPage, type Pagination } from '../pagination';
import { compiledPageStatement, noteListed } from './compiled-page';
import { leadsOf, toLead, type Lead, type LeadRow } from './shape';
import { countByCounters } from './counters';
import { decodeLeadCursor, encodeLeadCursor, type CursorScope, type LeadSortKey } from './cursor';
import { applyFilters, pageStatement, type JsonPageRow, type LeadListFilters, type ListPosition, type PageArgs } from './page-statement';

// The leads list, one entry (listPage): `leads.getAll` (Lead objects) and `GET /api/v1/leads` (the
// leads' stored JSON) answer the same page, in page mode (`page`) or cursor mode (`cursor`), with the exact total.
// Totals without a search are the counters' sum (counters.ts); a search counts its matches, and
// so does an external id (at most one lead: the unique index's probe, never the workspace).
// First and keyset pages run where `hotReads` says unless `db` is a transaction (pageRows);
// everything else on `db`.

/** Page mode (`page`, default 1) or cursor mode (`cursor`); the input schema refuses both at once. */
export interface LeadsPageRequest {
  page?: number;
  cursor?: string;
  pageSize: number;
}

/** The list's pagination: `page` is null on a page reached by cursor. */
export interface CursorPagination extends Omit<Pagination, 'page'> {
  page: number | null;
  /** Give it as `cursor` for the page after this one; null on the last page. */
  nextCursor: string | null;
}

export interface CursorPage<T> {
  data: T[];
  pagination: CursorPagination;
}

/**
 * What a page's leads are answered as. `leads`: Lead objects (Dates as Dates), for `leads.getAll`.
 * `json`: the whole answer as JSON text in pieces to be sent one after another (send-json.ts),
 * each lead as PostgreSQL stored it (lead_json: plain JSON, dates as ISO strings), for
 * `GET /api/v1/leads`. Both are the same page, wrapper and total.
 */
export interface PageForms {
  leads: CursorPage<Lead>;
  json: string[];
}

/** One page of the list, answered as `form` says. */
export async function listPage<F extends keyof PageForms>(
  db: Db,
  hotReads: HotReads,
  orgId: string,
  filters: LeadListFilters,
  request: LeadsPageRequest,
  form: F,
): Promise<PageForms[F]> {
  const { page, pageSize, position, cursorAfter } = positionOf(orgId, filters, request);
  const wrap = (total: number, next: LeadSortKey | null) => paginationOf(total, { page, pageSize }, cursorAfter(next));
  if (form === 'json') {
    const { leadsJson, total, next } = await readJson(db, hotReads, orgId, filters, position);
    const answer: PageForms['json'] = ['{"data":[', leadsJson, `],"pagination":${JSON.stringify(wrap(total, next))}}`];
    return answer as PageForms[F];
  }
  const { leads, total, next } = await readLeads(db, hotReads, orgId, filters, position);
  const answer: PageForms['leads'] = { data: leads, pagination: wrap(total, next) };
  return answer as PageForms[F];
}

/** Where the page starts, and how to turn its last sort key into the next cursor (bound to these filters). */
function positionOf(orgId: string, filters: LeadListFilters, request: LeadsPageRequest) {
  const scope: CursorScope = { orgId, status: filters.status, assignedToId: filters.assignedToId, search: filters.search?.text, externalId: filters.externalId };
  const { pageSize } = request;
  const page = request.cursor === undefined ? (request.page ?? 1) : null;
  const position: ListPosition =
    request.cursor === undefined ? { page: page ?? 1, pageSize } : { after: decodeLeadCursor(request.cursor, scope), pageSize };
  const cursorAfter = (next: LeadSortKey | null) => (next ? encodeLeadCursor(next, scope) : null);
  return { page, pageSize, position, cursorAfter };
}

/**
 * A page numbered as the spec says (page mode), or a page reached by cursor, which has no number:
 * some page precedes it, and another follows exactly when there is a next cursor.
 */
function paginationOf(total: number, request: { page: number | null; pageSize: number }, nextCursor: string | null): CursorPagination {
  if (request.page !== null) {
    const { pagination } = toPage([], total, { page: request.page, pageSize: request.pageSize });
    return { ...pagination, nextCursor };
  }
  const totalPages = Math.max(1, Math.ceil(total / request.pageSize));
  return { page: null, pageSize: request.pageSize, total, totalPages, hasNextPage: nextCursor !== null, hasPrevPage: true, nextCursor };
}

/** One page of leads, the exact total, and the sort key of the page's last lead when more leads follow (else null). */
async function readLeads(
  db: Db,
  hotReads: HotReads,
  orgId: string,
  filters: LeadListFilters,
  position: ListPosition,
): Promise<{ leads: Lead[]; total: number; next: LeadSortKey | null }> {
  const { page, total } = await withTotal(db, orgId, filters, position, async (withTotal) => {
    const rows = await pageRows<LeadRow & { total?: string }>(db, hotReads, { orgId, filters, position, as: 'columns', withTotal });
    return { rows, fetched: rows.length, total: rows[0]?.total === undefined ? null : Number(rows[0].total) };
  });
  const last = page.rows[position.pageSize - 1];
  const next = page.rows.length > position.pageSize && last ? { nextCallAt: last.next_call_at, createdAt: last.created_at, id: last.id } : null;
  return { leads: page.rows.slice(0, position.pageSize).map(toLead), total, next };
}

/** The same page as `readLeads`, its leads as their stored JSON joined with commas (for the REST list, which sends them as they come). */
async function readJson(
  db: Db,
  hotReads: HotReads,
  orgId: string,
  filters: LeadListFilters,
  position: ListPosition,
): Promise<{ leadsJson: string; total: number; next: LeadSortKey | null }> {
  const { page, total } = await withTotal(db, orgId, filters, position, async (withTotal) => {
    const [row] = await pageRows<JsonPageRow>(db, hotReads, { orgId, filters, position, as: 'json', withTotal });
    if (!row) throw new Error('an aggregate answers one row');
    return { row, fetched: row.fetched, total: row.total === undefined ? null : Number(row.total) };
  });
  const { row } = page;
  const next = row.fetched > position.pageSize && row.last_id !== null && row.last_created_at !== null
    ? { nextCallAt: row.last_next_call_at === null ? null : parseTimestamp(row.last_next_call_at), createdAt: parseTimestamp(row.last_created_at), id: row.last_id }
    : null;
  return { leadsJson: row.json ?? '', total, next };
}

/**
 * A page (read by `read`) and the exact total. Without a search the total is the counters' sum,
 * read in the page's own statement: one round trip, and a total from the same snapshot as the
 * rows; a statement that returned no row (a page past the end) asks the counters on their own. A
 * search must count its matches, so its page is read first: a numbered page that ends the list,
 * and is not empty past the first, already tells the total, and only a fuller answer pays for the count.
 * A search's statements may run longer than the rest (longStatementRows).
 */
async function withTotal<P extends { fetched: number; total: number | null }>(
  db: Db,
  orgId: string,
  filters: LeadListFilters,
  position: ListPosition,
  read: (withTotal: boolean) => Promise<P>,
): Promise<{ page: P; total: number }> {
  const counted = filters.search !== undefined || filters.externalId !== undefined;
  if (!counted) {
    const page = await read(true);
    const total = page.total ?? (await countByCounters(db, orgId, filters));
    noteListed(orgId, total);
    return { page, total };
  }
  const page = await read(false);
  const offset = 'after' in position ? undefined : offsetOf(position);
  const lastPage = offset !== undefined && page.fetched <= position.pageSize && (page.fetched > 0 || offset === 0);
  if (lastPage) return { page, total: offset + page.fetched };
  const [matches] = await longStatementRows<{ n: string }>(db, applyFilters(leadsOf(db, orgId), orgId, filters).count({ n: '*' }));
  return { page, total: Number(matches?.n ?? 0) };
}

/** Up to pageSize + 1 rows of the page statement. */
async function pageRows<Row>(db: Db, hotReads: HotReads, args: PageArgs): Promise<Row[]> {
  const { filters, position } = args;
  // First and keyset pages cost about the same on every call: their statement is compiled once
  // per shape and runs where `hotReads` says, or in `db` when it is a transaction (compiled-page.ts).
  // A search's plan depends on its term, and an OFFSET's cost grows with it: those are built on
  // every call. A page's plan depends on its workspace's size: only a workspace's own statement
  // is prepared under a name (compiled-page.ts).
  // An external id's page is one index probe: planned each call, it is cheap, and its plan is that probe.
  const planEachCall = filters.search !== undefined || filters.externalId !== undefined || ('page' in position && offsetOf(position) > 0);
  // A JSON page's 200 sort-key timestamps stay text; only the last row's are parsed (parseTimestamp).
  const types = args.as === 'json' ? TIMESTAMPS_AS_TEXT : undefined;
  if (!planEachCall) return hotReads.rows<Row>(db, compiledPageStatement(db, args), types);
  const query = pageStatement(db, args);
  if (filters.search !== undefined) return longStatementRows<Row>(db, query, types);
  if (types) query.options({ types });
  const result: unknown = await query;
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

const TIMESTAMPTZ = pg.types.builtins.TIMESTAMPTZ;
const parseTimestamp = pg.types.getTypeParser(TIMESTAMPTZ) as (value: string) => Date;
const asText = (value: string) => value;
const TIMESTAMPS_AS_TEXT = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    return oid === TIMESTAMPTZ ? asText : pg.types.getTypeParser(oid, format);
  },
};
