import type { paths } from './generated/openapi.js';
import type { ProcedureInput, ProcedureOutput } from './procedures.js';
import { field, send, unexpectedAnswer, type RawAnswer, type RequestOptions, type Transport } from './transport.js';
import { WorkspaceApiError, type ApiFieldIssue } from './workspace-api-error.js';

type JsonBody<O> = O extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
type JsonAnswer<O, Status extends number> = O extends { responses: { [S in Status]: { content: { 'application/json': infer A } } } } ? A : never;

/**
 * A Lead as `GET /api/v1/leads/{id}` answers it, its timestamps revived as Dates (REST sends ISO
 * strings): the same type `leads.getById` answers.
 */
export type Lead = JsonAnswer<paths['/api/v1/leads/{id}']['get'], 200>;
export type LeadsPage = ProcedureOutput<'leads.getAll'>;

/** The REST list's query parameters: the filters and page numbers of `leads.getAll`. */
export type LeadsListFilters = NonNullable<ProcedureInput<'leads.getAll'>>;
export type LeadsWalkFilters = Omit<LeadsListFilters, 'page' | 'cursor'>;

/** The bodies of `POST /api/v1/leads` and `PATCH /api/v1/leads/{id}` (the lead's version goes in `ifMatch`). */
export type LeadCreateInput = JsonBody<paths['/api/v1/leads']['post']>;
export type LeadUpdateInput = JsonBody<paths['/api/v1/leads/{id}']['patch']>;
/** The body of `PUT /api/v1/leads/external/{externalId}`: the create's fields (the external id is the path's). */
export type LeadUpsertInput = JsonBody<paths['/api/v1/leads/external/{externalId}']['put']>;

/** A lead read or written through REST, with the version its `ETag` names (for `ifMatch`). */
export interface LeadWithEtag {
  lead: Lead;
  etag: string | undefined;
}

export interface LeadUpdateOptions extends RequestOptions {
  /** The `etag` of the version read: the update is refused with PRECONDITION_FAILED (412) if the lead has changed since. */
  ifMatch?: string;
}

const PATH = '/api/v1/leads';

/** One page of `GET /api/v1/leads`. */
export async function listLeads(t: Transport, filters: LeadsListFilters = {}, options?: RequestOptions): Promise<LeadsPage> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined && value !== null) query.set(name, String(value));
  }
  const qs = query.toString();
  const answer = await send(t, { method: 'GET', url: `${t.baseUrl}${PATH}${qs ? `?${qs}` : ''}`, path: PATH }, options);
  if (answer.status !== 200) throw restError(answer, PATH);
  const page = answer.body as { data: Record<string, unknown>[]; pagination: LeadsPage['pagination'] };
  return { data: page.data.map(reviveLead), pagination: page.pagination } as LeadsPage;
}

/**
 * Every lead matching the filters, page after page, as the spec recommends: pages are not a
 * snapshot, so the walk asks for the next page while the page just received says `hasNextPage`
 * (not while the first page's `totalPages` says so), and a lead that moved onto a later page is
 * yielded once. Defaults to the largest page (100), the fewest requests.
 */
export async function* walkLeads(t: Transport, filters: LeadsWalkFilters = {}, options?: RequestOptions): AsyncGenerator<Lead, void, undefined> {
  const seen = new Set<string>();
  for (let page = 1; ; page += 1) {
    const answer = await listLeads(t, { pageSize: 100, ...filters, page }, options);
    for (const lead of answer.data as Lead[]) {
      if (seen.has(lead.id)) continue;
      seen.add(lead.id);
      yield lead;
    }
    if (!answer.pagination.hasNextPage) return;
  }
}

/** `POST /api/v1/leads`: 201 with the lead (its URL in `Location`). */
export async function createLead(t: Transport, input: LeadCreateInput, options?: RequestOptions): Promise<LeadWithEtag> {
  const answer = await send(t, { method: 'POST', url: `${t.baseUrl}${PATH}`, path: PATH, body: JSON.stringify(input) }, options);
  return leadAnswer(answer, 201, PATH);
}

/** `GET /api/v1/leads/{id}`. */
export async function getLead(t: Transport, id: string, options?: RequestOptions): Promise<LeadWithEtag> {
  const path = itemPath(id);
  return leadAnswer(await send(t, { method: 'GET', url: `${t.baseUrl}${path}`, path }, options), 200, path);
}

/** `PATCH /api/v1/leads/{id}`, conditional on `If-Match` when `ifMatch` is given. */
export async function updateLead(t: Transport, id: string, input: LeadUpdateInput, options: LeadUpdateOptions = {}): Promise<LeadWithEtag> {
  const path = itemPath(id);
  const { ifMatch, ...requestOptions } = options;
  const headers = ifMatch === undefined ? undefined : { 'If-Match': ifMatch };
  const answer = await send(t, { method: 'PATCH', url: `${t.baseUrl}${path}`, path, body: JSON.stringify(input), headers }, requestOptions);
  return leadAnswer(answer, 200, path);
}

/**
 * `PUT /api/v1/leads/external/{externalId}`: creates the lead holding `externalId` (`created`
 * true, 201) or changes it (200); with `ifMatch`, only that version of an existing lead.
 */
export async function upsertLeadByExternalId(
  t: Transport, externalId: string, input: LeadUpsertInput, options: LeadUpdateOptions = {},
): Promise<LeadWithEtag & { created: boolean }> {
  const path = `${PATH}/external/${encodeURIComponent(externalId)}`;
  const { ifMatch, ...requestOptions } = options;
  const headers = ifMatch === undefined ? undefined : { 'If-Match': ifMatch };
  const answer = await send(t, { method: 'PUT', url: `${t.baseUrl}${path}`, path, body: JSON.stringify(input), headers }, requestOptions);
  const created = answer.status === 201;
  return { ...leadAnswer(answer, created ? 201 : 200, path), created };
}

/** `DELETE /api/v1/leads/{id}`: 204. */
export async function deleteLead(t: Transport, id: string, options?: RequestOptions): Promise<void> {
  const path = itemPath(id);
  const answer = await send(t, { method: 'DELETE', url: `${t.baseUrl}${path}`, path }, options);
  if (answer.status !== 204) throw restError(answer, path);
}

const itemPath = (id: string) => `${PATH}/${encodeURIComponent(id)}`;

function leadAnswer(answer: RawAnswer, expected: number, path: string): LeadWithEtag {
  if (answer.status !== expected || field(answer.body, 'id') === undefined) throw restError(answer, path);
  return { lead: reviveLead(answer.body as Record<string, unknown>), etag: answer.headers.get('etag') ?? undefined };
}

/** The REST error body: `{"error":{"code","message","issues"?}}`. */
export function restError(answer: RawAnswer, path: string): WorkspaceApiError {
  const error = field(answer.body, 'error');
  const code = field(error, 'code');
  if (typeof code !== 'string') return unexpectedAnswer(answer, path);
  return new WorkspaceApiError({
    code,
    status: answer.status,
    message: String(field(error, 'message') ?? code),
    issues: field(error, 'issues') as ApiFieldIssue[] | undefined,
    requestId: answer.requestId,
    path,
  });
}

/** REST is plain JSON: a lead's three timestamps arrive as ISO strings. */
export function reviveLead(raw: Record<string, unknown>): Lead {
  return {
    ...raw,
    nextCallAt: raw.nextCallAt == null ? null : new Date(raw.nextCallAt as string),
    createdAt: new Date(raw.createdAt as string),
    updatedAt: new Date(raw.updatedAt as string),
  } as Lead;
}
