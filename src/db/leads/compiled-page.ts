import type { Db } from '../knex';
import { CallValues, compiledPerShape, type BoundStatement } from '../hot-reads';
import { pageStatement, type PageArgs } from './page-statement';

// Unnamed, so planned on every call with its values: a page's best plan depends on how many leads
// its workspace holds, which a generic plan cannot see. Among many small workspaces, PostgreSQL's
// generic plan read and sorted a large workspace's every lead (tests/performance-contracts/leads-list-plans.test.ts).
const compiledPage = compiledPerShape(pageStatement, { named: false });

/**
 * The statement of a first page or a keyset page without a search, as `pageStatement` builds it,
 * compiled once per shape and planned on every call (src/db/hot-reads.ts, which says what that buys): its ids,
 * status and cursor key are the call's values; its filters present, 'unassigned', the cursor's
 * null next call, the page size and the rest shape its text
 * (tests/performance-contracts/compiled-page.property.test.ts holds it to `pageStatement`).
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
