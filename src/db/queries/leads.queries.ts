import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES, NEXT_UPDATED_AT } from '../tables';
import { personFieldsOf, type Contact } from './contacts.queries';
import { whereLeadContactMatches, type SearchTerm } from '../contact-search';
import { offsetOf, type PageRequest } from '../pagination';
import { countLeadsByCounters, countersSumQuery } from '../lead-totals';
import type { LeadSortKey } from '../lead-cursor';
import { prepared, parseTimestamp, TIMESTAMPS_AS_TEXT } from '../prepared-statements';
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

/** An ISO 8601 UTC string exactly as JavaScript's Date#toISOString writes it (dates are bounded to years 0001-9999). */
function isoOf(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * The same Lead object as `toLead`, rendered as compact JSON by PostgreSQL, field for field and in
 * the same order (tests/integration/leads-rest-json.test.ts holds the two equal). The REST list
 * sends it as it comes: parsing 100 rows and writing them out again was most of that list's CPU.
 * It reads the columns of a finished page `p` (SELECT's names), so only the rows sent are
 * rendered: rendered inside the page query, a deep page rendered every row its OFFSET skipped.
 */
const LEAD_JSON_OF_PAGE = `cross join lateral (select p.id, p.name, p.phones, p.emails,
  p.phones[1] as "primaryPhone", p.emails[1] as "primaryEmail", p.company, p.contact_id as "contactId",
  p.source, p.status, p.notes, ${isoOf('p.next_call_at')} as "nextCallAt", ${isoOf('p.created_at')} as "createdAt",
  ${isoOf('p.updated_at')} as "updatedAt", p.assigned_to_id as "assignedToId", p.client_id as "clientId") j`;

/** A page's rows as they are sent by the REST list: its JSON, and its sort key (timestamps as text, see `listAsJson`). */
function renderedAsJson(db: Db, page: Knex.QueryBuilder | Knex.Raw, extraColumns: Knex.Raw[]) {
  return db
    .select('p.id', 'p.next_call_at', 'p.created_at', db.raw('row_to_json(j)::text as json'), ...extraColumns)
    .from(db.raw('(?) as p', [page]))
    .joinRaw(LEAD_JSON_OF_PAGE)
    .orderByRaw(listOrderOf('p'))
    .options({ types: TIMESTAMPS_AS_TEXT });
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
  const { rows, total } = await rowsAndTotal<LeadRow>(db, orgId, filters, position, 'columns');
  const leads = rows.slice(0, position.pageSize).map(toLead);
  return { leads, total, next: nextKeyOf(rows, position.pageSize) };
}

/** The same page as `list`, each lead already rendered as its JSON text (for the REST list). */
export async function listAsJson(
  db: Db,
  orgId: string,
  filters: LeadListFilters,
  position: ListPosition,
): Promise<{ leadsJson: string[]; total: number; next: LeadSortKey | null }> {
  type JsonRow = { json: string; id: string; next_call_at: string | null; created_at: string };
  const { rows, total } = await rowsAndTotal<JsonRow>(db, orgId, filters, position, 'json');
  const leadsJson = rows.slice(0, position.pageSize).map((row) => row.json);
  // The sort keys are text here (TIMESTAMPS_AS_TEXT): only the last row's are parsed, for the cursor.
  const last = rows.length > position.pageSize ? rows[position.pageSize - 1] : undefined;
  const next = last
    ? { nextCallAt: last.next_call_at === null ? null : parseTimestamp(last.next_call_at), createdAt: parseTimestamp(last.created_at), id: last.id }
    : null;
  return { leadsJson, total, next };
}

/**
 * A page's rows (up to pageSize + 1) and the exact total. Without a search the total is the
 * counters' sum, read in the page's own statement (a column computed once, as an InitPlan): one
 * round trip instead of two, and a total from the same snapshot as the rows. Only an empty page
 * (past the end) asks the counters on their own. A search must count its matches, so its page is
 * read first: a numbered page that ends the list, and is not empty past the first, already tells
 * the total (most searches find fewer leads than a page), and only a fuller answer pays for the count.
 */
async function rowsAndTotal<Row>(
  db: Db,
  orgId: string,
  filters: LeadListFilters,
  position: ListPosition,
  as: 'columns' | 'json',
): Promise<{ rows: Row[]; total: number }> {
  if (!filters.search) {
    const totalColumn = db.raw('coalesce((?), 0) as total', [countersSumQuery(db, orgId, filters)]);
    const rows = await pageRows<Row & { total: string }>(db, orgId, filters, position, as, [totalColumn]);
    return { rows, total: rows[0] ? Number(rows[0].total) : await countLeadsByCounters(db, orgId, filters) };
  }
  const rows = await pageRows<Row>(db, orgId, filters, position, as);
  const offset = 'after' in position ? undefined : offsetOf(position);
  const lastPage = offset !== undefined && rows.length <= position.pageSize && (rows.length > 0 || offset === 0);
  return { rows, total: lastPage ? offset + rows.length : await countOf(db, orgId, filters) };
}

function countOf(db: Db, orgId: string, filters: LeadListFilters): Promise<number> {
  return filters.search
    ? applyFilters(leadsOf(db, orgId), filters).count<{ n: string }[]>({ n: '*' }).then((r) => Number(r[0]?.n ?? 0))
    : countLeadsByCounters(db, orgId, filters);
}

/** The sort key of the page's last lead when the extra row says another page follows. */
function nextKeyOf(rows: { id: string; next_call_at: Date | null; created_at: Date }[], pageSize: number): LeadSortKey | null {
  const last = rows[pageSize - 1];
  return rows.length > pageSize && last ? { nextCallAt: last.next_call_at, createdAt: last.created_at, id: last.id } : null;
}

/** Up to pageSize + 1 rows: the extra one only tells whether another page follows. */
async function pageRows<Row>(
  db: Db,
  orgId: string,
  filters: LeadListFilters,
  position: ListPosition,
  as: 'columns' | 'json',
  /** Columns added to every row of the page (the total). */
  extraColumns: Knex.Raw[] = [],
): Promise<Row[]> {
  const inOrder = (query: Knex.QueryBuilder) => query.orderByRaw(listOrderOf('l')).limit(position.pageSize + 1);
  // Leads joined to their contacts as the filter's index is read: the cheapest way when nothing is skipped.
  const rows = (narrow: (q: Knex.QueryBuilder) => void = () => {}) => {
    const query = applyFilters(leadsWithContacts(db, orgId), filters).select(SELECT);
    narrow(query);
    return inOrder(query);
  };
  const offset = 'after' in position ? 0 : offsetOf(position);
  let page: Knex.QueryBuilder | Knex.Raw;
  if ('after' in position) page = afterKey(db, position, rows);
  else if (offset === 0) page = rows();
  else {
    // A deferred join: the keys come from the filter's index alone (it holds every sort column),
    // so an OFFSET skips index entries; only the rows sent are joined to leads and contacts. Joined
    // while skipping, page 1000 of a million leads read 500,000 contact index pages.
    page = leadsOfPage(db, orgId, inOrder(applyFilters(leadsOf(db, orgId), filters).select('l.id', 'l.next_call_at', 'l.created_at')).offset(offset));
  }
  const query = as === 'json' ? renderedAsJson(db, page, extraColumns) : withColumns(db, page, extraColumns);
  // Prepared only where every call costs about the same: first pages and keyset pages. A search's
  // plan depends on its term, and an OFFSET's cost grows with it: after a few deep pages
  // PostgreSQL would switch the statement to a generic plan, which cannot see the LIMIT and goes
  // parallel for a 101-row page. Those are planned on every call.
  const result: unknown = await (filters.search || offset > 0 ? query : prepared(db, query));
  return (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
}

/** The page as `p`, in its order, with columns added to every row (none: the page itself). */
function withColumns(db: Db, page: Knex.QueryBuilder | Knex.Raw, extraColumns: Knex.Raw[]) {
  if (extraColumns.length === 0) return page;
  return db.select('p.*', ...extraColumns).from(db.raw('(?) as p', [page])).orderByRaw(listOrderOf('p'));
}

/** The leads (with their contacts' fields, SELECT's columns) of a page of keys `k`, in the list's order. */
function leadsOfPage(db: Db, orgId: string, keys: Knex.QueryBuilder) {
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

export async function getById(db: Db, orgId: string, leadId: string): Promise<Lead | undefined> {
  const row = await prepared(db, leadsWithContacts(db, orgId).select(SELECT).where('l.id', leadId).first());
  return row ? toLead(row as LeadRow) : undefined;
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
