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
