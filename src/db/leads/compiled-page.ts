import type { Db } from '../knex';
import { CallValues, compiledPerShape, type BoundStatement } from '../hot-reads';
import { pageStatement, type PageArgs } from './page-statement';

// A page's best plan depends on how many leads its workspace holds, which a plan made with the
// workspace as a parameter cannot see: among many small workspaces, PostgreSQL's generic plan of a
// shared named statement read and sorted a large workspace's every lead
// (tests/performance-contracts/leads-list-plans.test.ts). So a page is planned on
// every call (unnamed), except in the workspaces `ownStatements` admits: there the workspace's id,
// and the status filter's value, are written into the text and the statement named, so PostgreSQL
// keeps a plan made with that workspace's (and status's) own statistics, per connection; a status
// as a parameter got the generic plan of an average status. What it buys: planning a first page cost about as
// much of PostgreSQL's CPU as running it (docs/performance.md). To remove it, drop `ownStatements`
// and `inText` below and `noteListed` from list.ts.
const compiledPage = compiledPerShape(pageStatement, { named: false });

/**
 * The workspaces whose pages have statements of their own: those seen with a total of at least
 * OWN_STATEMENTS_MIN_LEADS (where a plan made for a smaller workspace would cost the most), up to
 * OWN_STATEMENTS_MAX_WORKSPACES per process: a statement of one shape costs PostgreSQL about
 * 100 KB on each connection that runs it, and a workspace uses a few shapes.
 */
const ownStatements = new Set<string>();
const OWN_STATEMENTS_MIN_LEADS = 1_000;
const OWN_STATEMENTS_MAX_WORKSPACES = 32;

/** Tells `compiledPageStatement` how many leads a list of `orgId` counted (any filter: at most the workspace's). */
export function noteListed(orgId: string, total: number): void {
  if (total >= OWN_STATEMENTS_MIN_LEADS && ownStatements.size < OWN_STATEMENTS_MAX_WORKSPACES) ownStatements.add(orgId);
}

/**
 * The statement of a first page or a keyset page without a search, as `pageStatement` builds it,
 * compiled once per shape and planned on every call (src/db/hot-reads.ts, which says what that buys): its ids,
 * status and cursor key are the call's values; its filters present, 'unassigned', the cursor's
 * null next call, the page size and the rest shape its text
 * (tests/performance-contracts/compiled-page.property.test.ts holds it to `pageStatement`).
 */
export function compiledPageStatement(db: Db, { orgId, filters, position, as, withTotal }: PageArgs): BoundStatement {
  const { status, assignedToId, search, externalId, ...unknownFilters } = filters;
  // A filter added to LeadListFilters must be given a place here, or it would be dropped.
  const none: Record<string, never> = unknownFilters;
  if (search !== undefined || externalId !== undefined) throw new Error('a search or external id page is planned, and built, on every call');
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
  // Value 0 is the workspace's id, 1 the status when there is one; a transaction runs the knex
  // form, planned on every call.
  const own = ownStatements.has(orgId) && !db.isTransaction;
  return compiledPage(db, shaped, values, own ? (status === undefined ? [0] : [0, 1]) : undefined);
}
