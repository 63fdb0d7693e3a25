export interface PageRequest {
  page: number;
  pageSize: number;
}

export interface Pagination {
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
  hasNextPage: boolean;
  hasPrevPage: boolean;
}

/** The wrapper every paginated list answers with. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

export function offsetOf({ page, pageSize }: PageRequest): number {
  return (page - 1) * pageSize;
}

export function toPage<T>(data: T[], total: number, { page, pageSize }: PageRequest): Page<T> {
  const totalPages = Math.max(1, Math.ceil(total / pageSize));
  return {
    data,
    pagination: { page, pageSize, total, totalPages, hasNextPage: page < totalPages, hasPrevPage: page > 1 },
  };
}

/** `%` and `_` (and the escape character itself) are taken literally in a LIKE pattern. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A list that also offers keyset paging: `page` is null on a page reached by cursor. */
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
 * A page numbered as the spec says (page mode), or a page reached by cursor, which has no number:
 * some page precedes it, and another follows exactly when there is a next cursor.
 */
export function toCursorPage<T>(
  data: T[],
  total: number,
  request: { page: number | null; pageSize: number },
  nextCursor: string | null,
): CursorPage<T> {
  if (request.page !== null) {
    const { pagination } = toPage(data, total, { page: request.page, pageSize: request.pageSize });
    return { data, pagination: { ...pagination, nextCursor } };
  }
  const totalPages = Math.max(1, Math.ceil(total / request.pageSize));
  return {
    data,
    pagination: { page: null, pageSize: request.pageSize, total, totalPages, hasNextPage: nextCursor !== null, hasPrevPage: true, nextCursor },
  };
}
