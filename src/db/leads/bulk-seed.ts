import type { Db } from '../knex';
import { TABLES } from '../tables';
import type { LeadStatus } from '../../domain/lead-status';
import { addToCounts } from './counters';
import { storeLeadJson } from './lead-json';

// `seed bulk`: realistic contacts, leads and (for converted leads) clients, generated inside
// PostgreSQL in set-based batches. Each batch writes, in its transaction, what the leads module's
// `insert` writes for one lead: the leads' copies of their contact's search text, lead_counts
// and lead_json.

/** Word lists the generator draws from; sampling happens inside PostgreSQL, per row. */
const FIRST = ['Oliver', 'Amelia', 'George', 'Isla', 'Harry', 'Ava', 'Noah', 'Mia', 'Jack', 'Ivy', 'Leo', 'Lily', 'Arthur', 'Grace', 'Muhammad', 'Sophia', 'James', 'Emily', 'Liam', 'Olivia', 'Ethan', 'Chloe', 'Lucas', 'Priya', 'Mason', 'Zara', 'Aiden', 'Fatima', 'Samuel', 'Hannah', 'Daniel', 'Ruby', 'Joseph', 'Ella', 'David', 'Maria', 'Thomas', 'Aisha', 'William', 'Sofia'];
const LAST = ['Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Johnson', 'Davies', 'Patel', 'Robinson', 'Wright', 'Thompson', 'Evans', 'Walker', 'White', 'Roberts', 'Green', 'Hall', 'Wood', 'Jackson', 'Clarke', 'Khan', 'Garcia', 'Martinez', 'Miller', 'Anderson', 'Nguyen', 'Kowalski', 'Murphy', "O'Brien", 'Singh', 'Lewis', 'Hughes', 'Edwards', 'Hill', 'Moore', 'Martin', 'Lee', 'Harris', 'Clark'];
const COMPANY_A = ['Acme', 'Northwind', 'Blue Harbour', 'Brightside', 'Red Kite', 'Summit', 'Oakridge', 'Silverline', 'Greenfield', 'Ironbridge', 'Westgate', 'Crescent', 'Pioneer', 'Harbourview', 'Keystone', 'Lakeside', 'Meridian', 'Evergreen', 'Riverside', 'Skyline'];
const COMPANY_B = ['Logistics', 'Dental', 'Builders', 'Consulting', 'Foods', 'Media', 'Motors', 'Legal', 'Property', 'Fitness', 'Software', 'Plumbing', 'Design', 'Travel', 'Energy'];
const COMPANY_C = ['Ltd', 'Ltd', 'LLC', 'Inc', 'Group', 'Partners', '& Co'];
const DOMAINS = ['gmail.com', 'outlook.com', 'yahoo.com', 'hotmail.co.uk', 'icloud.com', 'proton.me'];
const US_AREAS = ['201', '212', '213', '305', '312', '404', '415', '503', '512', '617', '646', '702', '718', '773', '818', '917'];
/** Cumulative status shares: most leads are untouched or unanswered, a few converted. */
const STATUS_SHARES: [string, number][] = [
  ['NOT_CONTACTED', 0.4], ['NO_ANSWER', 0.65], ['CONTACTED', 0.75], ['BUSY', 0.81], ['QUALIFIED', 0.86],
  ['LOST', 0.91], ['SWITCHED_OFF', 0.94], ['OUT_OF_SERVICE', 0.96], ['WRONG_NUMBER', 0.98], ['CONVERTED', 1],
];
const SOURCES = ['website', 'referral', 'cold_call', 'linkedin', 'event', 'ads'];

const pick = (list: string, r: string) => `(${list})[1 + floor(${r} * cardinality(${list}))::int]`;
const statusCase = `case ${STATUS_SHARES.map(([s, upTo]) => `when r_status < ${upTo} then '${s}'`).join(' ')} end`;
/** 22 base62-looking characters from a random uuid: the tail of the app's id shape, made inside the statement. */
const RANDOM_TAIL = `substr(translate(encode(uuid_send(gen_random_uuid()), 'base64'), '+/', 'Zz'), 1, 22)`;

/**
 * Every row of one batch is drawn once (`src`, materialised), then contacts, the clients of
 * converted leads and the leads are inserted from it in one statement (foreign keys are checked
 * at its end, when the contacts are there). It answers the batch's leads per (status, assignee),
 * for their counters and stored JSON.
 */
const BATCH_SQL = `
with params as (
  select ?::text as org_id, ?::text[] as members, ?::text as region, ?::bigint as offset_n, ?::float8 as total_n,
    ?::text[] as first_names, ?::text[] as last_names, ?::text[] as company_a, ?::text[] as company_b,
    ?::text[] as company_c, ?::text[] as domains, ?::text[] as us_areas, ?::text[] as sources
), src as materialized (
  select g, p.org_id, p.members, p.region, p.offset_n, ${RANDOM_TAIL} as tail,
    random() as r_status, random() as r_assign, random() as r_member, random() as r_call, random() as r_more,
    -- Row g's place in the run (0..1): creation times and call times follow it, so one batch
    -- writes one narrow slice of each time-ordered index instead of dirtying all of its pages.
    (g - random()) / p.total_n as place,
    ${pick('first_names', 'random()')} as first, ${pick('last_names', 'random()')} as last,
    case when random() < 0.7 then ${pick('company_a', 'random()')} || ' ' || ${pick('company_b', 'random()')} || ' ' || ${pick('company_c', 'random()')} end as company,
    ${pick('domains', 'random()')} as domain, ${pick('us_areas', 'random()')} as us_area,
    ${pick('sources', 'random()')} as source,
    random() < 0.7 as local_phone
  from params p cross join generate_series(?::bigint, ?::bigint) g
), shaped as materialized (
  select src.*, ${statusCase} as status,
    -- The lead, its contact and client share the random tail, and batches are inserted in tail
    -- order, so the id indexes and foreign-key checks walk their pages in order.
    'con_' || tail as contact_id, 'lead_' || tail as lead_id, 'cli_' || tail as client_id,
    now() - interval '365 days' * (1 - place) as created_at,
    -- g times a prime coprime to 10^n walks every residue once: phones are unique within a run.
    -- UK mobiles avoid 076 (pagers) and 0791 (partly unallocated), which libphonenumber rejects.
    case when (region = 'US') = local_phone
      then '+1' || us_area || lpad((2000000 + (g * 7919 + offset_n) % 8000000)::text, 7, '0')
      else '+447' || (array['4', '5', '8'])[1 + g % 3] || lpad(((g * 7919 + offset_n) % 100000000)::text, 8, '0') end as phone
  from src
), contacts_in as (
  insert into ${TABLES.contacts} (org_id, id, name, phones, emails, company, created_at, updated_at)
  select org_id, contact_id, first || ' ' || last,
    case when r_more < 0.1 then array[phone, '+4475' || lpad(((g * 104729) % 100000000)::text, 8, '0')] else array[phone] end,
    case when r_more > 0.9 then '{}'::text[] else array[lower(replace(first || '.' || last, '''', '')) || g || '@' || domain] end,
    company, created_at, created_at
  from shaped order by tail collate "C"
  -- The leads' copies of their contact's search text (migration 20261203120000).
  returning id, lower(search_text) as search_lower, phone_digits
), clients_in as (
  insert into ${TABLES.clients} (org_id, id, name, contact_id, company, phone, created_at, updated_at)
  select org_id, client_id, first || ' ' || last, contact_id, company, phone, least(now(), created_at + interval '20 days'), least(now(), created_at + interval '20 days')
  from shaped where status = 'CONVERTED'
), leads_in as (
insert into ${TABLES.leads} (org_id, id, contact_id, status, source, notes, next_call_at, assigned_to_id, client_id, converted_at, created_at, updated_at,
  contact_search_lower, contact_phone_digits)
select org_id, lead_id, contact_id, status,
  case when r_call < 0.85 then source end,
  case when r_more < 0.05 then 'Asked to call back after the holidays' end,
  -- A third have no call scheduled; the rest spread over the past and next month, to the minute.
  case when status in ('CONVERTED', 'LOST') or r_call < 0.33 then null
    else date_trunc('minute', now() - interval '30 days' + place * interval '61 days') end,
  -- About 20% unassigned; the rest skewed so the first members own most leads (r^3).
  case when r_assign < 0.2 or cardinality(members) = 0 then null
    else members[1 + floor(power(r_member, 3) * cardinality(members))::int] end,
  case when status = 'CONVERTED' then client_id end,
  case when status = 'CONVERTED' then least(now(), created_at + interval '20 days') end,
  created_at, least(now(), created_at + r_more * interval '10 days'),
  c.search_lower, c.phone_digits
from shaped join contacts_in c on c.id = shaped.contact_id order by tail collate "C"
returning id, status, assigned_to_id
)
select status, assigned_to_id, count(*)::int as n, array_agg(id) as ids from leads_in group by status, assigned_to_id`;

export interface BulkBatch {
  orgId: string;
  memberIds: string[];
  /** The workspace's phone region: most phones are local to it (GB or US). */
  region: string;
  /** Inclusive range of row numbers out of `total`; with `phoneOffset` it makes the phones of a run distinct. */
  from: number;
  to: number;
  total: number;
  phoneOffset: number;
}

/** What a batch's transaction sets for itself before its statement. */
export const BATCH_SETTINGS = [
  // Memory for the batch's sorts. (The trigram indexes' pending lists stay at their own 512 kB:
  // an index's storage parameter overrides the session's gin_pending_list_limit.)
  "set local work_mem = '128MB'",
  // The statement's estimates (12.5 million rows out of its join of CTEs) pass every JIT
  // threshold, and compiling it cost 1.8-2.3 s of a batch for nothing, as it runs once.
  'set local jit = off',
];

/**
 * Inserts one batch of contacts and leads (and clients for converted leads) in one transaction:
 * the rows in one statement, then the leads' counters (one upsert) and their stored JSON (one
 * insert rendered by lead-json.ts).
 */
export async function insertBatch(db: Db, batch: BulkBatch): Promise<void> {
  await db.transaction(async (trx) => {
    for (const setting of BATCH_SETTINGS) await trx.raw(setting);
    const { rows } = await trx.raw<{ rows: { status: LeadStatus; assigned_to_id: string | null; n: number; ids: string[] }[] }>(BATCH_SQL, [
      batch.orgId, batch.memberIds, batch.region, batch.phoneOffset, batch.total,
      FIRST, LAST, COMPANY_A, COMPANY_B, COMPANY_C, DOMAINS, US_AREAS, SOURCES,
      batch.from, batch.to,
    ]);
    await addToCounts(trx, batch.orgId, rows.map((r) => ({ status: r.status, assignedToId: r.assigned_to_id, n: r.n })));
    await storeLeadJson(trx, batch.orgId, { leadIds: rows.flatMap((r) => r.ids) });
  });
}

export async function memberIdsOf(db: Db, orgId: string): Promise<string[]> {
  const rows = await db(TABLES.orgMembers).select('id').where('org_id', orgId).orderBy('created_at').orderBy('id');
  return rows.map((r: { id: string }) => r.id);
}

/** The tables a batch inserts into itself. */
export const INSERTED_TABLES = [TABLES.contacts, TABLES.leads, TABLES.clients];

/** The tables a bulk load writes: its three, and the leads' counters and stored JSON. */
export const LOADED_TABLES = [...INSERTED_TABLES, TABLES.leadJson, TABLES.leadCounts];

/** Refreshes the loaded tables' statistics (ANALYZE samples a fixed number of rows: well under a second). */
export async function analyseLoaded(db: Db): Promise<void> {
  await db.raw(`analyze ${LOADED_TABLES.join(', ')}`);
}

/**
 * Vacuums and analyses the loaded tables, as after any bulk load: without it every page of the
 * new rows stays out of the visibility map (index-only scans visit the heap) and without hint
 * bits (the first reads of each page write), so a fresh million-lead workspace read deep pages
 * and walks 2-3x slower than the same data once autovacuum had passed; the statistics let the
 * first queries plan well. The leads' stored JSON and counters are loaded as much as leads: a
 * never-analysed lead_json made PostgreSQL expect 33 rows per lead from its primary key and plan
 * the first page in parallel, ten times slower.
 * One statement: VACUUM cannot run in a multi-statement string.
 */
export async function vacuumAnalyse(db: Db): Promise<void> {
  await db.raw(`vacuum (analyze) ${LOADED_TABLES.join(', ')}`);
}
