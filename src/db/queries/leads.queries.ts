import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES, NEXT_UPDATED_AT } from '../tables';
import { personFieldsOf, type Contact } from './contacts.queries';
import { whereLeadContactMatches, type SearchTerm } from '../contact-search';
import { offsetOf, type PageRequest } from '../pagination';
import { countLeadsByCounters, countersSumQuery } from '../lead-totals';
import type { LeadSortKey } from '../lead-cursor';
import { parseTimestamp, TIMESTAMPS_AS_TEXT } from '../prepared-statements';
import { CallValues, compiledPerShape, type BoundStatement } from '../compiled-statements';
import { newId } from '../../domain/ids';
import type { LeadStatus } from '../../domain/lead-status';

/** The Lead object of the spec: exactly these 16 fields, always present. */
export interface Lead {
  id: string;
  name: string;
  phones: string[];
  emails: string[];
  primaryPhone: string | null;
  primaryEmail: string | null;
  contactId: string;
  company: string | null;
  source: string | null;
  status: LeadStatus;
  notes: string | null;
  nextCallAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  assignedToId: string | null;
  clientId: string | null;
}

export interface LeadListFilters {
  status?: LeadStatus;
  /** Matched case-insensitively against the contact's name, emails, phones and company. */
  search?: SearchTerm;
  /** A member id, or 'unassigned' for leads without one. */
  assignedToId?: string;
}

/** Lead columns as stored; contact fields are joined in. */
export interface LeadFields {
  status: LeadStatus;
  source: string | null;
  notes: string | null;
  nextCallAt: Date | null;
  assignedToId: string | null;
  clientId: string | null;
}

const SELECT = [
  'l.id', 'l.contact_id', 'l.status', 'l.source', 'l.notes', 'l.next_call_at', 'l.assigned_to_id', 'l.client_id',
  'l.created_at', 'l.updated_at', 'c.name', 'c.phones', 'c.emails', 'c.company',
];

interface LeadRow {
  id: string;
  contact_id: string;
  status: LeadStatus;
  source: string | null;
  notes: string | null;
  next_call_at: Date | null;
  assigned_to_id: string | null;
  client_id: string | null;
  created_at: Date;
  updated_at: Date;
  name: string;
  phones: string[];
  emails: string[];
  company: string | null;
}

/** The REST list's page in one row: what `listAsJson` reads (timestamps as text, see there). */
interface JsonPageRow {
  /** The page's leads as JSON, comma-separated (null when there are none). */
  json: string | null;
  /** Rows read: pageSize + 1 means another page follows. */
  fetched: number;
  /** The sort key of the page's last lead when another page follows. */
  last_id: string | null;
  last_next_call_at: string | null;
  last_created_at: string | null;
  /** The counters' sum, when the statement was asked to carry it. */
  total?: string;
}

/**
 * A page as the REST list sends it, aggregated by PostgreSQL into one row (`JsonPageRow`): the
 * leads' stored JSON joined in the list's order, how many rows were read, the last lead's sort key
 * and, given, the total. `page` reads JSON_PAGE_COLUMNS. Read as 101 rows, the driver spent about
 * as much CPU decoding them as the rest of the request; as one row it reads one string.
 */
function pageAsJson(db: Db, page: Knex.QueryBuilder | Knex.Raw, pageSize: number, total: Knex.QueryBuilder | undefined) {
  const numbered = db
    .select('p.id', 'p.next_call_at', 'p.created_at', 'p.json', db.raw(`row_number() over (order by ${listOrderOf('p')}) as rn`))
    .from(db.raw('(?) as p', [page]));
  const lastOf = (column: string) => db.raw(`max(r.${column}) filter (where r.rn = ?) as last_${column}`, [pageSize]);
  return db
    .select(
      db.raw(`string_agg(r.json, ',' order by r.rn) filter (where r.rn <= ?) as json`, [pageSize]),
      db.raw('count(*)::int as fetched'),
      lastOf('id'),
      lastOf('next_call_at'),
      lastOf('created_at'),
      ...(total ? [totalColumn(db, total)] : []),
    )
    .from(db.raw('(?) as r', [numbered]));
}

/** The counters' sum as a column: an uncorrelated subquery, which PostgreSQL runs once (an InitPlan). */
function totalColumn(db: Db, total: Knex.QueryBuilder): Knex.Raw {
  return db.raw('coalesce((?), 0) as total', [total]);
}

function toLead(row: LeadRow): Lead {
  return {
    id: row.id,
    ...personFieldsOf(row),
    contactId: row.contact_id,
    source: row.source,
    status: row.status,
    notes: row.notes,
    nextCallAt: row.next_call_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    assignedToId: row.assigned_to_id,
    clientId: row.client_id,
  };
}

/** The workspace's leads alone: every list filter, a search included, reads only the lead's row. */
function leadsOf(db: Db, orgId: string) {
  return db({ l: TABLES.leads }).where('l.org_id', orgId);
}

/** The workspace's leads joined to their contacts, for the fields a lead answers with. */
function leadsWithContacts(db: Db, orgId: string) {
  return leadsOf(db, orgId).join({ c: TABLES.contacts }, function joinContact() {
    this.on('c.org_id', '=', 'l.org_id').andOn('c.id', '=', 'l.contact_id');
  });
}

/** The workspace's leads joined to their stored JSON (lead_json), for the REST list. */
function leadsWithJson(db: Db, orgId: string) {
  return leadsOf(db, orgId).join({ d: TABLES.leadJson }, function joinJson() {
    this.on('d.org_id', '=', 'l.org_id').andOn('d.lead_id', '=', 'l.id');
  });
}

/** A lead's place in the list: its sort key, which is all a deferred page's keys read. */
const SORT_KEY_COLUMNS = ['l.id', 'l.next_call_at', 'l.created_at'];

/** The columns a REST page reads: the sort key and the stored JSON. */
const JSON_PAGE_COLUMNS = [...SORT_KEY_COLUMNS, 'd.json'];

function applyFilters(query: Knex.QueryBuilder, filters: LeadListFilters) {
  if (filters.status) query.where('l.status', filters.status);
  if (filters.assignedToId === 'unassigned') query.whereNull('l.assigned_to_id');
  else if (filters.assignedToId) query.where('l.assigned_to_id', filters.assignedToId);
  if (filters.search) whereLeadContactMatches(query, filters.search);
  return query;
}

const LIST_ORDER = 'next_call_at asc nulls last, created_at desc, id desc';

/** The list's order over the columns of the table or subquery `alias`. */
const listOrderOf = (alias: string) => `${alias}.${LIST_ORDER.replace(/, /g, `, ${alias}.`)}`;

/** Where a page starts: a page number (offset), or just after a lead's sort key (keyset). */
export type ListPosition = PageRequest | { after: LeadSortKey; pageSize: number };

/**
 * One page of leads in the list's order (next call first, newest first, then id), the exact
 * total, and the sort key of the page's last lead when more leads follow (else null).
 * Totals without a search come from the counters; a search counts its matches.
 */
export async function list(
  db: Db,
  orgId: string,
  filters: LeadListFilters,
  position: ListPosition,
): Promise<{ leads: Lead[]; total: number; next: LeadSortKey | null }> {
  const { page, total } = await withTotal(db, orgId, filters, position, async (withTotal) => {
    const rows = await pageRows<LeadRow & { total?: string }>(db, { orgId, filters, position, as: 'columns', withTotal });
    return { rows, fetched: rows.length, total: rows[0]?.total === undefined ? null : Number(rows[0].total) };
  });
  return { leads: page.rows.slice(0, position.pageSize).map(toLead), total, next: nextKeyOf(page.rows, position.pageSize) };
}

/**
 * The same page as `list`, its leads already rendered as JSON by PostgreSQL and joined with commas
 * (for the REST list, which sends them as they come).
 */
export async function listAsJson(
  db: Db,
  orgId: string,
  filters: LeadListFilters,
  position: ListPosition,
): Promise<{ leadsJson: string; total: number; next: LeadSortKey | null }> {
  const { page, total } = await withTotal(db, orgId, filters, position, async (withTotal) => {
    const [row] = await pageRows<JsonPageRow>(db, { orgId, filters, position, as: 'json', withTotal });
    if (!row) throw new Error('an aggregate answers one row');
    return { row, fetched: row.fetched, total: row.total === undefined ? null : Number(row.total) };
  });
  const { row } = page;
  // The sort keys are text (TIMESTAMPS_AS_TEXT) until parsed here, for the cursor.
  const next = row.fetched > position.pageSize && row.last_id !== null && row.last_created_at !== null
    ? { nextCallAt: row.last_next_call_at === null ? null : parseTimestamp(row.last_next_call_at), createdAt: parseTimestamp(row.last_created_at), id: row.last_id }
    : null;
  return { leadsJson: row.json ?? '', total, next };
}

/** What reading a page tells about the list's total: the rows it read, and the total when its statement carried it. */
interface FetchedPage {
  fetched: number;
  total: number | null;
}

/**
 * A page (up to pageSize + 1 rows read, by `read`) and the exact total. Without a search the total
 * is the counters' sum, read in the page's own statement: one round trip instead of two, and a
 * total from the same snapshot as the rows. A statement that returned no row (a page past the end
 * of `list`) asks the counters on their own. A search must count its matches, so its page is
 * read first: a numbered page that ends the list, and is not empty past the first, already tells
 * the total (most searches find fewer leads than a page), and only a fuller answer pays for the count.
 */
async function withTotal<P extends FetchedPage>(
  db: Db,
  orgId: string,
  filters: LeadListFilters,
  position: ListPosition,
  /** Reads the page; `withTotal`: in a statement that carries the counters' sum. */
  read: (withTotal: boolean) => Promise<P>,
): Promise<{ page: P; total: number }> {
  if (!filters.search) {
    const page = await read(true);
    return { page, total: page.total ?? (await countLeadsByCounters(db, orgId, filters)) };
  }
  const page = await read(false);
  const offset = 'after' in position ? undefined : offsetOf(position);
  const lastPage = offset !== undefined && page.fetched <= position.pageSize && (page.fetched > 0 || offset === 0);
  return { page, total: lastPage ? offset + page.fetched : await countMatches(db, orgId, filters) };
}

/** A search's matches, counted (its filters may add status and assignee). */
function countMatches(db: Db, orgId: string, filters: LeadListFilters): Promise<number> {
  return applyFilters(leadsOf(db, orgId), filters).count<{ n: string }[]>({ n: '*' }).then((r) => Number(r[0]?.n ?? 0));
}

/** The sort key of the page's last lead when the extra row says another page follows. */
function nextKeyOf(rows: { id: string; next_call_at: Date | null; created_at: Date }[], pageSize: number): LeadSortKey | null {
  const last = rows[pageSize - 1];
  return rows.length > pageSize && last ? { nextCallAt: last.next_call_at, createdAt: last.created_at, id: last.id } : null;
}

/** What a page statement reads, and how it answers. */
export interface PageArgs {
  orgId: string;
  filters: LeadListFilters;
  position: ListPosition;
  as: 'columns' | 'json';
  /** Whether the statement carries the counters' sum as the total (every page without a search). */
  withTotal: boolean;
}

/** Up to pageSize + 1 rows: the extra one only tells whether another page follows. */
async function pageRows<Row>(db: Db, args: PageArgs): Promise<Row[]> {
  const { filters, position } = args;
  // Prepared, and so compiled once, only where every call costs about the same: first pages and
  // keyset pages. A search's plan depends on its term, and an OFFSET's cost grows with it: after a
  // few deep pages PostgreSQL would switch the statement to a generic plan, which cannot see the
  // OFFSET (a parameter) and went parallel for a 101-row page. Those are planned on every call.
  const planEachCall = filters.search !== undefined || ('page' in position && offsetOf(position) > 0);
  const types = args.as === 'json' ? TIMESTAMPS_AS_TEXT : undefined;
  if (!planEachCall) return compiledPageStatement(db, args).rows<Row>(types);
  const query = pageStatement(db, args);
  if (types) query.options({ types });
  const result: unknown = await query;
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

/** The statement of a page (`pageRows`), built anew. */
export function pageStatement(db: Db, { orgId, filters, position, as, withTotal }: PageArgs): Knex.QueryBuilder | Knex.Raw {
  // The LIMIT is written into the text (knex makes it an integer): as a parameter, PostgreSQL's
  // generic plan cannot see it, costs the page as a tenth of the workspace, and so re-plans every
  // call of the prepared statement (planning was as long as running a first page).
  const inOrder = (query: Knex.QueryBuilder) => query.orderByRaw(listOrderOf('l')).limit(position.pageSize + 1, { skipBinding: true });
  /** The filtered `columns` of `from()` in the list's order, narrowed further by `narrow`. */
  const filtered = (from: () => Knex.QueryBuilder, columns: readonly string[]) => (narrow: (q: Knex.QueryBuilder) => void = () => {}) => {
    const query = applyFilters(from(), filters).select(columns);
    narrow(query);
    return inOrder(query);
  };
  // Leads joined to the rest of what they answer with (their contacts, or as JSON their stored
  // JSON) as the filter's index is read: the cheapest way when nothing is skipped.
  const joined = as === 'json'
    ? filtered(() => leadsWithJson(db, orgId), JSON_PAGE_COLUMNS)
    : filtered(() => leadsWithContacts(db, orgId), SELECT);
  // A deferred join: the page's keys come from leads alone, and only the rows sent read the rest.
  // An OFFSET then skips entries of the filter's index (it holds every sort column): joined
  // while skipping, page 1000 of a million leads read 500,000 contact index pages. A search
  // filters on the lead's own row: when its matches are read by the trigram index and sorted,
  // joined first they cost a lookup each (25,000 for a common term).
  const keys = filtered(() => leadsOf(db, orgId), SORT_KEY_COLUMNS);
  const restOf = (pageKeys: Knex.QueryBuilder | Knex.Raw) => (as === 'json' ? jsonOfPage(db, orgId, pageKeys) : leadsOfPage(db, orgId, pageKeys));
  const offset = 'after' in position ? 0 : offsetOf(position);
  let page: Knex.QueryBuilder | Knex.Raw;
  if ('after' in position) page = filters.search ? restOf(afterKey(db, position, keys)) : afterKey(db, position, joined);
  else if (offset === 0 && !filters.search) page = joined();
  else page = restOf(keys().offset(offset));
  const total = withTotal ? countersSumQuery(db, orgId, filters) : undefined;
  return as === 'json' ? pageAsJson(db, page, position.pageSize, total) : withTotalColumn(db, page, total);
}

const compiledPage = compiledPerShape(pageStatement);

/**
 * The statement of a first page or a keyset page without a search, compiled once per shape
 * (compiled-statements.ts): its ids, status and cursor key are the call's values; its filters
 * present, 'unassigned', the cursor's null next call, the page size and the rest shape its text.
 */
export function compiledPageStatement(db: Db, { orgId, filters, position, as, withTotal }: PageArgs): BoundStatement {
  const { status, assignedToId, search, ...unknownFilters } = filters;
  // A filter added to LeadListFilters must be given a place here, or it would be dropped.
  const none: Record<string, never> = unknownFilters;
  if (search !== undefined) throw new Error('a search page is planned, and built, on every call');
  if (Object.values(none).some((value) => value !== undefined)) throw new Error('a filter the compiled page does not know');
  const values = new CallValues();
  const { pageSize } = position;
  const shaped: PageArgs = {
    orgId: values.of(orgId),
    filters: {
      ...(status !== undefined && { status: values.of(status) }),
      // 'unassigned' is a different condition (IS NULL); a member's id is a value.
      ...(assignedToId !== undefined && { assignedToId: assignedToId === 'unassigned' ? assignedToId : values.of(assignedToId) }),
    },
    position: 'after' in position
      ? {
          pageSize,
          after: {
            // A null next call reads other key ranges (afterKey).
            nextCallAt: position.after.nextCallAt === null ? null : values.of(position.after.nextCallAt),
            createdAt: values.of(position.after.createdAt),
            id: values.of(position.after.id),
          },
        }
      : { page: position.page, pageSize },
    as,
    withTotal,
  };
  return compiledPage(db, shaped, values);
}

/** The page as `p`, in its order, with the total on every row (no total: the page itself). */
function withTotalColumn(db: Db, page: Knex.QueryBuilder | Knex.Raw, total: Knex.QueryBuilder | undefined) {
  if (!total) return page;
  return db.select('p.*', totalColumn(db, total)).from(db.raw('(?) as p', [page])).orderByRaw(listOrderOf('p'));
}

/** The leads (with their contacts' fields, SELECT's columns) of a page of keys `k`, in the list's order. */
function leadsOfPage(db: Db, orgId: string, keys: Knex.QueryBuilder | Knex.Raw) {
  return db
    .select(SELECT)
    .from(db.raw('(?) as k', [keys]))
    .join({ l: TABLES.leads }, function joinLead() {
      this.on('l.id', '=', 'k.id').andOnVal('l.org_id', '=', orgId);
    })
    .join({ c: TABLES.contacts }, function joinContact() {
      this.on('c.org_id', '=', 'l.org_id').andOn('c.id', '=', 'l.contact_id');
    })
    .orderByRaw(listOrderOf('k'));
}

/** The stored JSON (JSON_PAGE_COLUMNS) of a page of keys `k`, in the list's order. */
function jsonOfPage(db: Db, orgId: string, keys: Knex.QueryBuilder | Knex.Raw) {
  return db
    .select('k.id', 'k.next_call_at', 'k.created_at', 'd.json')
    .from(db.raw('(?) as k', [keys]))
    .join({ d: TABLES.leadJson }, function joinJson() {
      this.on('d.lead_id', '=', 'k.id').andOnVal('d.org_id', '=', orgId);
    })
    .orderByRaw(listOrderOf('k'));
}

/**
 * The rows after a cursor's sort key, as disjoint ranges that each follow one index in order: the
 * rest of the key's own next_call_at, later next_call_at values, then leads without a next call.
 * One OR over them would make PostgreSQL read the index from the workspace's first lead onwards.
 */
function afterKey(
  db: Db,
  position: { after: LeadSortKey; pageSize: number },
  ordered: (narrow: (q: Knex.QueryBuilder) => void) => Knex.QueryBuilder,
): Knex.Raw {
  const { nextCallAt, createdAt, id } = position.after;
  const sameTimeOlder = (q: Knex.QueryBuilder) => q.whereRaw('(l.created_at, l.id) < (?, ?)', [createdAt, id]);
  const parts =
    nextCallAt === null
      ? [ordered((q) => sameTimeOlder(q.whereNull('l.next_call_at')))]
      : [
          ordered((q) => sameTimeOlder(q.where('l.next_call_at', nextCallAt))),
          ordered((q) => q.where('l.next_call_at', '>', nextCallAt)),
          ordered((q) => q.whereNull('l.next_call_at')),
        ];
  const union = parts.map(() => '(?)').join(' union all ');
  return db.raw(`select * from (${union}) u order by ${LIST_ORDER} limit ?`, [...parts, position.pageSize + 1]);
}

const compiledGetById = compiledPerShape((db, { orgId, leadId }: { orgId: string; leadId: string }) =>
  leadsWithContacts(db, orgId).select(SELECT).where('l.id', leadId).limit(1));

export async function getById(db: Db, orgId: string, leadId: string): Promise<Lead | undefined> {
  const values = new CallValues();
  const [row] = await compiledGetById(db, { orgId: values.of(orgId), leadId: values.of(leadId) }, values).rows<LeadRow>();
  return row ? toLead(row) : undefined;
}

/** Locks the lead row for the rest of the transaction; answers what an update must check. */
export async function lockForUpdate(
  db: Db,
  orgId: string,
  leadId: string,
): Promise<{ contactId: string; status: LeadStatus; assignedToId: string | null; updatedAt: Date } | undefined> {
  const row = await db(TABLES.leads)
    .select('contact_id', 'status', 'assigned_to_id', 'updated_at')
    .where({ org_id: orgId, id: leadId })
    .forUpdate()
    .first();
  return row ? { contactId: row.contact_id, status: row.status, assignedToId: row.assigned_to_id, updatedAt: row.updated_at } : undefined;
}

/**
 * A new lead about `contact`, written in the contact's transaction: the lead as the API will
 * answer it, with the contact's timestamps (both are `now()`, the transaction's start), and the
 * statement that writes it. No read-back is needed; `leads.create` runs the statement beside its
 * events, other callers await it on its own.
 */
export function newLeadOf(db: Db, orgId: string, contact: Contact, fields: LeadFields): { lead: Lead; insert: Knex.QueryBuilder } {
  const { name, phones, emails, company, createdAt } = contact;
  const id = newId('lead');
  const lead = toLead({
    id, contact_id: contact.id, status: fields.status, source: fields.source, notes: fields.notes, next_call_at: fields.nextCallAt,
    assigned_to_id: fields.assignedToId, client_id: fields.clientId,
    // Two Date objects: one object at two paths would be written as a superjson referential equality.
    created_at: createdAt, updated_at: new Date(createdAt),
    name, phones: [...phones], emails: [...emails], company,
  });
  const insert = db(TABLES.leads).insert({
    org_id: orgId, id, contact_id: contact.id, ...toColumns(fields), created_at: createdAt, updated_at: createdAt,
  });
  return { lead, insert };
}

export async function update(db: Db, orgId: string, leadId: string, patch: Partial<LeadFields>): Promise<void> {
  await db(TABLES.leads)
    .where({ org_id: orgId, id: leadId })
    .update({ ...toColumns(patch), updated_at: db.raw(NEXT_UPDATED_AT) });
}

/** The one write that makes a lead CONVERTED: links the client and records when (for conversion rates). */
export async function markConverted(db: Db, orgId: string, leadId: string, clientId: string): Promise<void> {
  await db(TABLES.leads)
    .where({ org_id: orgId, id: leadId })
    .update({
      status: 'CONVERTED' satisfies LeadStatus,
      client_id: clientId,
      converted_at: db.raw('clock_timestamp()'),
      updated_at: db.raw(NEXT_UPDATED_AT),
    });
}

/** Answers false when there was no such lead in the workspace. */
export async function remove(db: Db, orgId: string, leadId: string): Promise<boolean> {
  const deleted = await db(TABLES.leads).where({ org_id: orgId, id: leadId }).delete();
  return deleted > 0;
}

function toColumns(fields: Partial<LeadFields>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (fields.status !== undefined) columns.status = fields.status;
  if (fields.source !== undefined) columns.source = fields.source;
  if (fields.notes !== undefined) columns.notes = fields.notes;
  if (fields.nextCallAt !== undefined) columns.next_call_at = fields.nextCallAt;
  if (fields.assignedToId !== undefined) columns.assigned_to_id = fields.assignedToId;
  if (fields.clientId !== undefined) columns.client_id = fields.clientId;
  return columns;
}
