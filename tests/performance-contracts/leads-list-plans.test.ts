import pg from 'pg';
import { createTestDb } from '../helpers/test-app';
import { seedLeads } from '../helpers/seed-leads';
import { createWorkspace, createMember } from '../helpers/factories';
import * as leads from '../../src/db/leads';
import * as contacts from '../../src/db/contacts';
import type { LeadListFilters } from '../../src/db/leads';
import { toSearchTerm } from '../../src/domain/phone';
import type { Db } from '../../src/db/knex';
import { HotReads } from '../../src/db/hot-reads';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  'Plan Rows'?: number;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

/**
 * The plan PostgreSQL ran the page with. On Citus that is the worker's plan of the one task (the
 * statement is single-shard), with the shard's suffix taken off its table and index names.
 */
function localPlanOf(plan: PlanNode): PlanNode {
  const distributed = (plan as { 'Distributed Query'?: { Job: { Tasks: { 'Remote Plan': [[{ Plan: PlanNode }]] }[] } } })['Distributed Query'];
  if (!distributed) return plan;
  expect(distributed.Job.Tasks).toHaveLength(1);
  const unshard = (node: PlanNode): PlanNode => ({
    ...node,
    ...(node['Index Name'] ? { 'Index Name': node['Index Name'].replace(/_\d+$/, '') } : {}),
    ...(node['Relation Name'] ? { 'Relation Name': node['Relation Name'].replace(/_\d+$/, '') } : {}),
    ...(node.Plans ? { Plans: node.Plans.map(unshard) } : {}),
  });
  return unshard(distributed.Job.Tasks[0]!['Remote Plan'][0][0].Plan);
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

/** The plan's nodes but its InitPlans (the page's total, read from the counters in the same statement). */
function pageNodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).filter((child) => child['Parent Relationship'] !== 'InitPlan').flatMap(pageNodesOf)];
}

/**
 * The plan PostgreSQL picks for the list's page query (the one with the ORDER BY, captured as
 * the app sends it) and for a search's count, on a workspace of 60,000 leads among others (at 20,000, a seq scan of contacts is rightly cheaper for the phone case).
 */
/**
 * Plans that hang on statistics (how common a term is) or on PostgreSQL's generic plans are one
 * node's: on Citus each shard has statistics of its own, a fraction of the table's, and Citus
 * plans each distributed statement per call, never generically.
 */
const itOnOneNode = process.env.WSAPI_TEST_CITUS === '1' ? it.skip : it;

describe('leads list query plans (EXPLAIN on real PostgreSQL)', () => {
  const db = createTestDb(2);
  const hotReads = HotReads.on(db);
  let orgId: string;
  let otherOrgId: string;
  let member: string;
  afterAll(() => db.destroy());

  beforeAll(async () => {
    const other = await createWorkspace(db);
    const ws = await createWorkspace(db);
    orgId = ws.org.id;
    otherOrgId = other.org.id;
    const members = [ws.member.id, ...(await Promise.all([1, 2, 3].map(() => createMember(db, orgId)))).map((m) => m.id)];
    member = members[1]!;
    await seedLeads(db, other.org.id, 'po', 5000, [other.member.id]);
    await seedLeads(db, orgId, 'pw', 60000, members);
    await db.raw('analyze leads; analyze contacts; analyze lead_counts; analyze lead_json');
  }, 600_000); // 65,000 leads with their search copies, counters and stored JSON: about a minute on a quiet 2-core machine, over three when other suites share it

  /** The plan of the query (picked among those one list call sends) as the app sends it. */
  async function planOf(
    filters: LeadListFilters,
    pick: (sql: string) => boolean,
    options: { page?: number; analyze?: boolean; cursor?: string } = {},
  ): Promise<PlanNode> {
    const seen: { sql: string; bindings: unknown[] }[] = [];
    const record = (q: { sql: string; bindings: unknown[] }) => seen.push(q);
    db.on('query', record);
    try {
      await leads.listPage(db, hotReads, orgId, filters, options.cursor ? { cursor: options.cursor, pageSize: 100 } : { page: options.page ?? 1, pageSize: 100 }, 'json');
    } finally {
      db.removeListener('query', record);
    }
    const query = seen.find((q) => pick(q.sql));
    if (!query) throw new Error(`no query matched among ${seen.map((q) => q.sql).join(' | ')}`);
    // The captured SQL has the driver's $n placeholders: send it through a pooled connection as is.
    const connection = await db.client.acquireConnection();
    try {
      // A search's statement comes with the `set local` of its longer timeout (longStatementRows): explain the statement.
      const sql = query.sql.replace(/^set local statement_timeout = \d+; /, '');
      const explained = await connection.query(`explain (${options.analyze ? 'analyze, ' : ''}format json) ${sql}`, query.bindings);
      return localPlanOf((explained.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
    } finally {
      await db.client.releaseConnection(connection);
    }
  }

  async function indexesUsed(filters: LeadListFilters, pick: (sql: string) => boolean, options: { page?: number } = {}): Promise<string[]> {
    return nodesOf(await planOf(filters, pick, options))
      .filter((n) => n['Node Type'].includes('Index'))
      .map((n) => `${n['Node Type']} ${n['Index Name']}`);
  }

  const pageQuery = (sql: string) => sql.includes('order by');
  /** Loops of each read of stored lead JSON, and nothing read from contacts (the JSON holds its fields). */
  const jsonLookupsOf = (nodes: PlanNode[]) => {
    expect(nodes.filter((n) => n['Relation Name'] === 'contacts' || n['Index Name']?.startsWith('contacts'))).toEqual([]);
    return nodes.filter((n) => n['Index Name'] === 'lead_json_pkey').map((n) => n['Actual Loops']);
  };
  /** A search's count of its matches (the page statement counts its own rows too, as `fetched`). */
  const countQuery = (sql: string) => sql.includes('count(*) as "n"');

  it.each([
    ['no filter', 'leads_org_order_idx', (): LeadListFilters => ({})],
    ['status', 'leads_org_status_order_idx', (): LeadListFilters => ({ status: 'CONTACTED' })],
    ['assignedToId', 'leads_org_assignee_order_idx', (): LeadListFilters => ({ assignedToId: member })],
    ['unassigned', 'leads_org_unassigned_order_idx', (): LeadListFilters => ({ assignedToId: 'unassigned' })],
    ['status and unassigned', 'leads_org_status_unassigned_order_idx', (): LeadListFilters => ({ status: 'LOST', assignedToId: 'unassigned' })],
  ])('reads the first page with %s from %s, in the list order', async (_label, index, filters) => {
    const used = pageNodesOf(await planOf(filters(), pageQuery))
      .filter((n) => n['Node Type'].includes('Index'))
      .map((n) => `${n['Node Type']} ${n['Index Name']}`);

    // The page's keys come from the filter's index alone (index-only once the visibility map is set).
    expect(used[0]).toMatch(new RegExp(`^Index (Only )?Scan ${index}$`));
  });

  it('skips a deep page\'s OFFSET in the index alone: only the rows sent read their stored JSON', async () => {
    const plan = await planOf({ status: 'CONTACTED' }, pageQuery, { page: 50, analyze: true });
    const lookups = nodesOf(plan)
      .filter((n) => ['leads_pkey', 'contacts_pkey', 'lead_json_pkey'].includes(n['Index Name'] ?? ''))
      .map((n) => [n['Index Name'], n['Actual Loops']]);
    // 4,900 leads skipped, 101 read: one lookup each into lead_json per row read, none into contacts.
    expect(lookups).toEqual([['lead_json_pkey', 101]]);
  });

  it('answers the total for a filter without search from the counters, once, in the page statement itself', async () => {
    const sent: string[] = [];
    const record = (q: { sql: string }) => sent.push(q.sql);
    db.on('query', record);
    try {
      await leads.listPage(db, hotReads, orgId, { status: 'CONTACTED' }, { page: 1, pageSize: 100 }, 'json');
    } finally {
      db.removeListener('query', record);
    }
    expect(sent).toHaveLength(1);

    const plan = await planOf({ status: 'CONTACTED' }, (sql) => sql.includes('lead_counts'));
    const initPlans = nodesOf(plan).flatMap((n) => (n.Plans ?? []).filter((child) => child['Parent Relationship'] === 'InitPlan'));
    expect(initPlans).toHaveLength(1);
    // The counters table and nothing else (a scan or its primary key, as its size decides).
    const read = nodesOf(initPlans[0]!).flatMap((n) => (n['Relation Name'] ? [n['Relation Name']] : []));
    expect(read).toEqual(['lead_counts']);
    // Nothing counts leads: the two aggregates are the page rendered into one row and the counters' sum.
    expect(plan['Node Type']).toBe('Aggregate');
    expect(nodesOf(plan).filter((n) => n['Node Type'] === 'Aggregate')).toHaveLength(2);
  });

  it('answers the exact total of a page past the end: in its statement for the REST list, from the counters alone for leads.getAll', async () => {
    const sent: string[] = [];
    const record = (q: { sql: string }) => sent.push(q.sql);
    db.on('query', record);
    try {
      // The REST list's page is one aggregated row even when it holds no lead, so it carries the total.
      const rendered = JSON.parse((await leads.listPage(db, hotReads, orgId, { status: 'CONTACTED' }, { page: 10_000, pageSize: 100 }, 'json')).join(''));
      expect(rendered).toMatchObject({ data: [], pagination: { total: 15_000, nextCursor: null } });
      expect(sent).toHaveLength(1);
      // leads.getAll reads rows: none came back to carry the total, so the counters are asked.
      sent.length = 0;
      const rows = await leads.listPage(db, hotReads, orgId, { status: 'CONTACTED' }, { page: 10_000, pageSize: 100 }, 'leads');
      expect(rows).toMatchObject({ data: [], pagination: { total: 15_000, nextCursor: null } });
      expect(sent).toHaveLength(2);
    } finally {
      db.removeListener('query', record);
    }
  });

  it('counts a 3+ character search term by the trigram index on leads, reading no contact', async () => {
    // Page 2 of no match: a page past the end, so the search is counted (page 1 would tell its total).
    const plan = await planOf({ search: toSearchTerm('md5-not-there-xyz') }, countQuery, { page: 2 });
    const nodes = nodesOf(plan);

    expect(nodes.map((n) => `${n['Node Type']} ${n['Index Name']}`)).toContain('Bitmap Index Scan leads_org_search_trgm_idx');
    expect(nodes.filter((n) => n['Relation Name'] === 'contacts' || n['Index Name']?.startsWith('contacts'))).toEqual([]);
  });

  it('counts a term by the workspace\'s own entries in the trigram index: no other workspace\'s match reaches the heap', async () => {
    // The other workspace's 5,000 leads have the same companies, so a bitmap
    // of every workspace's matches would hold about 110 of theirs for 'company 49'.
    const plan = await planOf({ search: toSearchTerm('company 49') }, countQuery, { page: 2, analyze: true });
    const nodes = nodesOf(plan) as (PlanNode & { 'Index Cond'?: string; 'Rows Removed by Filter'?: number })[];
    const indexScan = nodes.find((n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === 'leads_org_search_trgm_idx');
    const heapScan = nodes.find((n) => n['Node Type'] === 'Bitmap Heap Scan');

    expect(indexScan?.['Index Cond']).toContain('org_id =');
    expect(heapScan).toBeDefined();
    expect(heapScan?.['Rows Removed by Filter'] ?? 0).toBe(0);
  });

  it('counts a contacts search by the workspace\'s own entries in the contacts trigram index too', async () => {
    const seen: { sql: string; bindings: unknown[] }[] = [];
    const record = (q: { sql: string; bindings: unknown[] }) => seen.push(q);
    db.on('query', record);
    try {
      await contacts.list(db, orgId, { search: toSearchTerm('company 49') }, { page: 1, pageSize: 100 });
    } finally {
      db.removeListener('query', record);
    }
    const count = seen.find((q) => q.sql.includes('count('));
    const connection = await db.client.acquireConnection();
    try {
      const explained = await connection.query(`explain (analyze, format json) ${count!.sql}`, count!.bindings);
      const nodes = nodesOf(localPlanOf((explained.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan)) as (PlanNode & { 'Index Cond'?: string; 'Rows Removed by Filter'?: number })[];
      const indexScan = nodes.find((n) => n['Index Name'] === 'contacts_org_search_trgm_idx');

      expect(indexScan?.['Index Cond']).toContain('org_id =');
      expect(nodes.find((n) => n['Node Type'] === 'Bitmap Heap Scan')?.['Rows Removed by Filter'] ?? 0).toBe(0);
    } finally {
      await db.client.releaseConnection(connection);
    }
  });

  itOnOneNode('walks the list order for a common term, filtering on the lead row and reading JSON only for the rows sent (one node: statistics)', async () => {
    // 'company 1' is in about a fifth of the workspace's contacts (Company 1, 10-19, 100-199).
    const plan = await planOf({ search: toSearchTerm('company 1') }, pageQuery, { analyze: true });
    const nodes = nodesOf(plan);

    expect(nodes.map((n) => `${n['Node Type']} ${n['Index Name']}`)).toContain('Index Scan leads_org_order_idx');
    expect(jsonLookupsOf(nodes)).toEqual([101]);
  });

  it('keeps 1,000-entry statistics for the search copies on leads, so a common term is not guessed rare', async () => {
    // At a million leads, with the default 100 histogram entries, a term in 2.5% of the rows was
    // guessed at 132 matches: the page read all 32,697 by the trigram index to sort them.
    const { rows } = await db.raw("select attname, attstattarget from pg_attribute where attrelid = 'leads'::regclass and attname in ('contact_search_lower', 'contact_phone_digits') order by attname");

    expect(rows).toEqual([{ attname: 'contact_phone_digits', attstattarget: 1000 }, { attname: 'contact_search_lower', attstattarget: 1000 }]);
  });

  itOnOneNode('walks the list order for a term in about 2% of the workspace (one node: statistics)', async () => {
    // 'company 49' is in 1,320 of 60,000 leads (companies 49 and 490-499).
    const plan = await planOf({ search: toSearchTerm('company 49') }, pageQuery, { analyze: true });

    expect(nodesOf(plan).map((n) => `${n['Node Type']} ${n['Index Name']}`)).toContain('Index Scan leads_org_order_idx');
  });

  it('sorts a rarer term\'s matches from leads alone, reading JSON only for the rows sent', async () => {
    // 'company 499' is in 120 of the workspace's 60,000 leads: read by the trigram index and sorted.
    const plan = await planOf({ search: toSearchTerm('company 499') }, pageQuery, { analyze: true });
    const nodes = nodesOf(plan);

    expect(nodes.map((n) => `${n['Node Type']} ${n['Index Name']}`)).toContain('Bitmap Index Scan leads_org_search_trgm_idx');
    // Joined before the sort, every match would cost a lookup (120); the page needs 101.
    expect(jsonLookupsOf(nodes)).toEqual([101]);
  });

  it('reads JSON only for the rows sent on a search\'s cursor page too', async () => {
    // 'company 49' is in 1,320 leads (companies 49 and 490-499); the page after the first 100.
    const filters = { search: toSearchTerm('company 49') };
    const first = await leads.listPage(db, hotReads, orgId, filters, { page: 1, pageSize: 100 }, 'leads');
    const plan = await planOf(filters, pageQuery, { analyze: true, cursor: first.pagination.nextCursor! });
    // The page is joined once, after its three key ranges are merged.
    expect(jsonLookupsOf(nodesOf(plan))).toEqual([101]);
  });

  it('finds a phone fragment typed with spaces and a trunk 0 by the digits trigram index on leads', async () => {
    // Lead 1234's phone is +4420 and (1234 * 7919) % 10^8 = 09772046.
    const used = await indexesUsed({ search: toSearchTerm('020 0977 2046') }, countQuery, { page: 2 });

    expect(used).toContain('Bitmap Index Scan leads_contact_phone_digits_trgm_idx');
  });

  itOnOneNode.each([
    ['no filter', 'leads_org_order_idx', (): LeadListFilters => ({})],
    ['status', 'leads_org_status_order_idx', (): LeadListFilters => ({ status: 'CONTACTED' })],
    ['assignedToId', 'leads_org_assignee_order_idx', (): LeadListFilters => ({ assignedToId: member })],
    ['unassigned', 'leads_org_unassigned_order_idx', (): LeadListFilters => ({ assignedToId: 'unassigned' })],
  ])('runs the first page (%s) as a statement of this workspace, which walks %s, after other workspaces\' pages on the connection', async (label, index, filters) => {
    // A plan made with the workspace as a parameter knows only the average workspace: among many
    // small ones (a full test run's database), PostgreSQL's generic plan of a shared statement read
    // and sorted this workspace's every lead for the assignee filter. A workspace's pages are
    // statements of its own (compiled-page.ts): PostgreSQL keeps their plan, made with its numbers.
    const one = createTestDb(1); // one connection: the statements and plans every call meets
    const oneReads = HotReads.on(one);
    const sent: { sql: string; bindings: unknown[]; options?: { name?: string } }[] = [];
    const record = (q: (typeof sent)[number]) => sent.push(q);
    try {
      for (let i = 0; i < 8; i++) await leads.listPage(one, oneReads, otherOrgId, filters(), { page: 1, pageSize: 100 }, 'json');
      one.on('query', record);
      // Past the five calls after which PostgreSQL weighs keeping one plan.
      for (let i = 0; i < 8; i++) await leads.listPage(one, oneReads, orgId, filters(), { page: 1, pageSize: 100 }, 'json');
      one.removeListener('query', record);
      const page = sent.filter((q) => pageQuery(q.sql)).at(-1)!;
      const name = page.options?.name;
      expect(name).toEqual(expect.any(String));
      expect(page.sql).toContain(`'${orgId}'`);
      // A status is written in too: its plan is made with that status's numbers, not an average's.
      if (label === 'status') expect(page.sql).toContain("'CONTACTED'");
      const connection = await one.client.acquireConnection();
      try {
        // Whether PostgreSQL keeps one plan is its own choice by cost; without values (no filter, a status) it always does.
        const kept = await connection.query('select generic_plans from pg_prepared_statements where name = $1', [name]);
        if (label === 'no filter' || label === 'status') expect(Number(kept.rows[0].generic_plans)).toBeGreaterThan(0);
        // The plan the statement runs with (EXECUTE takes its values as literals here).
        const literal = (v: unknown) => (typeof v === 'number' ? String(v) : pg.escapeLiteral(String(v)));
        const args = page.bindings.map(literal).join(', ');
        const explained = await connection.query(`explain (format json) execute ${name}${args ? `(${args})` : ''}`);
        const plan = localPlanOf((explained.rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
        const used = pageNodesOf(plan).filter((n) => n['Node Type'].includes('Index')).map((n) => `${n['Node Type']} ${n['Index Name']}`);
        expect(used[0]).toMatch(new RegExp(`^Index (Only )?Scan ${index}$`));
        // Nothing under the page's LIMIT sorts: the leads come in the index's order (PostgreSQL 16 and
        // later may sort the page's 101 rows above it for the ordered string_agg).
        const limit = pageNodesOf(plan).find((n) => n['Node Type'] === 'Limit')!;
        expect(nodesOf(limit).map((n) => n['Node Type'])).not.toContain('Sort');
      } finally {
        await one.client.releaseConnection(connection);
      }
    } finally {
      one.removeListener('query', record);
      await one.destroy();
    }
  });
});
