import type { ProcedureInput, ProcedureOutput } from './registry-types';
import { restError, send, type Transport } from './transport';

/** A Lead of the REST list, with its timestamps revived as Dates: the same type `leads.getAll` answers. */
export type Lead = ProcedureOutput<'leads.getAll'>['data'][number];
export type LeadsPage = ProcedureOutput<'leads.getAll'>;

/** The REST list's query parameters: the filters and page numbers of `leads.getAll`. */
export type LeadsListFilters = NonNullable<ProcedureInput<'leads.getAll'>>;
export type LeadsWalkFilters = Omit<LeadsListFilters, 'page' | 'cursor'>;

const PATH = '/api/v1/leads';

/** One page of `GET /api/v1/leads`. */
export async function listLeads(t: Transport, filters: LeadsListFilters = {}): Promise<LeadsPage> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined) query.set(name, String(value));
  }
  const qs = query.toString();
  const answer = await send(t, 'GET', `${t.baseUrl}${PATH}${qs ? `?${qs}` : ''}`);
  if (answer.status !== 200) throw restError(answer, PATH);
  const page = answer.body as { data: Record<string, unknown>[]; pagination: LeadsPage['pagination'] };
  return { data: page.data.map(reviveLead), pagination: page.pagination };
}

/**
 * Every lead matching the filters, page after page, as the spec recommends: pages are not a
 * snapshot, so the walk asks for the next page while the page just received says `hasNextPage`
 * (not while the first page's `totalPages` says so), and a lead that moved onto a later page is
 * yielded once. Defaults to the largest page (100), the fewest requests.
 */
export async function* walkLeads(t: Transport, filters: LeadsWalkFilters = {}): AsyncGenerator<Lead, void, undefined> {
  const seen = new Set<string>();
  for (let page = 1; ; page += 1) {
    const answer = await listLeads(t, { pageSize: 100, ...filters, page });
    for (const lead of answer.data) {
      if (seen.has(lead.id)) continue;
      seen.add(lead.id);
      yield lead;
    }
    if (!answer.pagination.hasNextPage) return;
  }
}

/** The REST list is plain JSON: its three timestamps arrive as ISO strings. */
function reviveLead(raw: Record<string, unknown>): Lead {
  return {
    ...raw,
    nextCallAt: raw.nextCallAt == null ? null : new Date(raw.nextCallAt as string),
    createdAt: new Date(raw.createdAt as string),
    updatedAt: new Date(raw.updatedAt as string),
  } as Lead;
}
