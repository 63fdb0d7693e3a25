import type { Knex } from 'knex';
import { offsetOf, type PageRequest } from './pagination';

/**
 * Runs one page of a filtered query and its exact count side by side. `filtered` builds the
 * query with its joins and filters (called twice: once for rows, once for the count);
 * `orderBy` must end in a unique column so pages are stable.
 */
export async function paginate<Row, Item>(options: {
  filtered: () => Knex.QueryBuilder;
  select: string[];
  orderBy: string;
  page: PageRequest;
  toItem: (row: Row) => Item;
}): Promise<{ items: Item[]; total: number }> {
  const { filtered, select, orderBy, page, toItem } = options;
  const rowsQuery = filtered().select(select).orderByRaw(orderBy).limit(page.pageSize).offset(offsetOf(page));
  const countQuery = filtered().count({ n: '*' });
  const [rows, counted] = await Promise.all([rowsQuery, countQuery]);
  return { items: (rows as Row[]).map(toItem), total: Number((counted as { n: string }[])[0]?.n ?? 0) };
}
