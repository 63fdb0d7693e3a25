import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { offsetOf, type PageRequest } from '../pagination';
import { whereContactMatches, type ContactFields, type SearchTerm } from '../contact-search';
import type { LeadStatus } from '../../domain/lead-status';
import { LEAD_COLUMNS, leadsOf, leadsWithContacts } from './shape';
import { countersSumQuery } from './counters';
import type { LeadSortKey } from './cursor';

// The SQL of one page of the leads list. Every table is named with the workspace's id in its own
// WHERE or ON, so on Citus a page runs in the workspace's shard alone.

export interface LeadListFilters {
  status?: LeadStatus;
  /** Matched case-insensitively against the contact's name, emails, phones and company. */
  search?: SearchTerm;
  /** A member id, or 'unassigned' for leads without one. */
  assignedToId?: string;
  /** Exactly this external id: at most one lead, found by the unique index of external ids. */
  externalId?: string;
}

/** Where a page starts: a page number (offset), or just after a lead's sort key (keyset). */
export type ListPosition = PageRequest | { after: LeadSortKey; pageSize: number };

/** What a page statement reads, and how it answers. */
export interface PageArgs {
  orgId: string;
  filters: LeadListFilters;
  position: ListPosition;
  /** `columns`: LEAD_COLUMNS per lead; `json`: one row aggregating the leads' stored JSON (JsonPageRow). */
  as: 'columns' | 'json';
  /** Whether the statement carries the counters' sum as the total (every page without a search). */
  withTotal: boolean;
}

/** A page as the REST list sends it, aggregated into one row (`pageAsJson`). */
export interface JsonPageRow {
  /** The page's leads as JSON, comma-separated (null when there are none). */
  json: string | null;
  /** Rows read: pageSize + 1 means another page follows. */
  fetched: number;
  /** The sort key of the page's last lead when another page follows (timestamps as PostgreSQL's text). */
  last_id: string | null;
  last_next_call_at: string | null;
  last_created_at: string | null;
  /** The counters' sum, when the statement was asked to carry it. */
  total?: string;
}

const LIST_ORDER = 'next_call_at asc nulls last, created_at desc, id desc';

/** The list's order over the columns of the table or subquery `alias`. */
export const listOrderOf = (alias: string) => `${alias}.${LIST_ORDER.replace(/, /g, `, ${alias}.`)}`;

/** A lead's place in the list: its sort key, which is all a deferred page's keys read. */
const SORT_KEY_COLUMNS = ['l.id', 'l.next_call_at', 'l.created_at'];

/** The columns a REST page reads: the sort key and the stored JSON. */
const JSON_PAGE_COLUMNS = [...SORT_KEY_COLUMNS, 'd.json'];

/** The workspace's leads joined to their stored JSON (lead_json, `d`), for the REST list and its export. */
export function leadsWithJson(db: Db, orgId: string) {
  return leadsOf(db, orgId).join({ d: TABLES.leadJson }, function joinJson() {
    this.on('d.lead_id', '=', 'l.id').andOnVal('d.org_id', '=', orgId);
  });
}

export function applyFilters(query: Knex.QueryBuilder, orgId: string, filters: LeadListFilters) {
  if (filters.status) query.where('l.status', filters.status);
  if (filters.assignedToId === 'unassigned') query.whereNull('l.assigned_to_id');
  else if (filters.assignedToId) query.where('l.assigned_to_id', filters.assignedToId);
  if (filters.externalId !== undefined) query.where('l.external_id', filters.externalId);
  if (filters.search) whereContactMatches(query, filters.search, leadContactFields(orgId));
  return query;
}

/**
 * The contact match of the contacts list, for leads (alias `l`): on the copies of their contact's
 * search_text (lower-cased) and phone_digits that each lead carries (written by the leads' write
 * unit, writes.ts), so a search reads no contact for the leads it rejects. The rare checks that
 * need the contact's own fields read it only for the leads still in question.
 */
function leadContactFields(orgId: string): ContactFields {
  const contactOfLead = (q: Knex.QueryBuilder) => q.select(q.client.raw('1')).from({ c: TABLES.contacts })
    .where('c.org_id', orgId).whereRaw('c.id = l.contact_id');
  return {
    searchText: { column: 'l.contact_search_lower', lowerCased: true },
    phoneDigits: 'l.contact_phone_digits',
    onContact: (q, check) => q.whereExists((e) => check(contactOfLead(e), (name) => `c.${name}`)),
  };
}

/**
 * The statement of a page: up to pageSize + 1 rows (the extra one only tells whether another page
 * follows), in the list's order (next call first, newest first, then id).
 */
export function pageStatement(db: Db, { orgId, filters, position, as, withTotal }: PageArgs): Knex.QueryBuilder | Knex.Raw {
  // The LIMIT is written into the text (knex makes it an integer): as a parameter, PostgreSQL's
  // generic plan cannot see it, costs the page as a tenth of the workspace, and so re-plans every
  // call of the prepared statement (planning was as long as running a first page).
  const inOrder = (query: Knex.QueryBuilder) => query.orderByRaw(listOrderOf('l')).limit(position.pageSize + 1, { skipBinding: true });
  /** The filtered `columns` of `from()` in the list's order, narrowed further by `narrow`. */
  const filtered = (from: () => Knex.QueryBuilder, columns: readonly string[]) => (narrow: (q: Knex.QueryBuilder) => void = () => {}) => {
    const query = applyFilters(from(), orgId, filters).select(columns);
    narrow(query);
    return inOrder(query);
  };
  // Leads joined to the rest of what they answer with (their contacts, or their stored JSON) as
  // the filter's index is read: the cheapest way when nothing is skipped.
  const joined = as === 'json'
    ? filtered(() => leadsWithJson(db, orgId), JSON_PAGE_COLUMNS)
    : filtered(() => leadsWithContacts(db, orgId), LEAD_COLUMNS);
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

/**
 * A page as the REST list sends it, aggregated by PostgreSQL into one row (`JsonPageRow`): the
 * leads' stored JSON joined in the list's order, how many rows were read, the last lead's sort key
 * and, given, the total. Read as 101 rows, the driver spent about as much CPU decoding them as the
 * rest of the request; as one row it reads one string.
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

/** The page as `p`, in its order, with the total on every row (no total: the page itself). */
function withTotalColumn(db: Db, page: Knex.QueryBuilder | Knex.Raw, total: Knex.QueryBuilder | undefined) {
  if (!total) return page;
  return db.select('p.*', totalColumn(db, total)).from(db.raw('(?) as p', [page])).orderByRaw(listOrderOf('p'));
}

/** The leads (LEAD_COLUMNS) of a page of keys `k`, in the list's order. */
function leadsOfPage(db: Db, orgId: string, keys: Knex.QueryBuilder | Knex.Raw) {
  return db
    .select(LEAD_COLUMNS)
    .from(db.raw('(?) as k', [keys]))
    .join({ l: TABLES.leads }, function joinLead() {
      this.on('l.id', '=', 'k.id').andOnVal('l.org_id', '=', orgId);
    })
    .join({ c: TABLES.contacts }, function joinContact() {
      this.on('c.id', '=', 'l.contact_id').andOnVal('c.org_id', '=', orgId);
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
