/** Walks a workspace's leads list page by page (or by cursor), checking every id comes exactly once. */
export interface WalkResult {
  mode: 'page' | 'cursor';
  seconds: number;
  pages: number;
  ids: number;
  everyIdOnce: boolean;
}

interface ListBody {
  data: { id: string }[];
  pagination: { total: number; hasNextPage: boolean; nextCursor?: string | null };
}

export async function getPage(baseUrl: string, key: string, query: Record<string, string>): Promise<ListBody> {
  const res = await fetch(`${baseUrl}/api/v1/leads?${new URLSearchParams(query)}`, { headers: { Authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`GET /api/v1/leads ${JSON.stringify(query)} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as ListBody;
}

/** Whether the list answers `pagination.nextCursor` (added by a later change; detected, not assumed). */
export async function supportsCursor(baseUrl: string, key: string): Promise<boolean> {
  const body = await getPage(baseUrl, key, { pageSize: '1' });
  return 'nextCursor' in body.pagination;
}

/** Bounded: at most `expected / 100 + 2` pages and `maxSeconds` seconds; `filters` go on every page's query. */
export async function walk(
  baseUrl: string, key: string, expected: number, mode: 'page' | 'cursor', maxSeconds: number, filters: Record<string, string> = {},
): Promise<WalkResult> {
  const started = performance.now();
  const seen = new Set<string>();
  let duplicates = 0;
  let pages = 0;
  let cursor: string | null | undefined;
  const maxPages = Math.ceil(expected / 100) + 2;
  for (let page = 1; pages < maxPages; page += 1) {
    if ((performance.now() - started) / 1000 > maxSeconds) break;
    const query: Record<string, string> = { ...filters, pageSize: '100' };
    if (mode === 'page') query.page = String(page);
    else if (cursor) query.cursor = cursor;
    const body = await getPage(baseUrl, key, query);
    pages += 1;
    for (const lead of body.data) {
      if (seen.has(lead.id)) duplicates += 1;
      seen.add(lead.id);
    }
    cursor = body.pagination.nextCursor;
    const more = mode === 'page' ? body.pagination.hasNextPage : Boolean(cursor);
    if (!more) break;
  }
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  return { mode, seconds, pages, ids: seen.size, everyIdOnce: duplicates === 0 && seen.size === expected };
}
