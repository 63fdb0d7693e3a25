import { procedureMethods } from './generated/procedure-methods.js';
import type { ProcedureClients } from './procedures.js';
import {
  createLead,
  deleteLead,
  getLead,
  listLeads,
  updateLead,
  walkLeads,
  type Lead,
  type LeadCreateInput,
  type LeadsListFilters,
  type LeadsPage,
  type LeadsWalkFilters,
  type LeadUpdateInput,
  type LeadUpdateOptions,
  type LeadWithEtag,
} from './leads-rest.js';
import { callProcedure } from './rpc.js';
import type { FetchLike, RequestOptions, Transport } from './transport.js';

export interface WorkspaceClientOptions {
  /** Where the service answers, without `/api/v1` (e.g. `https://api.example.com`). */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  /** Retries of a 429, a 503, or (when repeating cannot act twice) a network failure; 2 by default. */
  maxRetries?: number;
  /** How long each attempt may take, in milliseconds; 60 000 by default. */
  timeoutMs?: number;
}

/** The single-lead REST routes: `POST /api/v1/leads`, `GET`, `PATCH` and `DELETE /api/v1/leads/{id}`. */
export interface LeadsItemRestClient {
  create(input: LeadCreateInput, options?: RequestOptions): Promise<LeadWithEtag>;
  get(id: string, options?: RequestOptions): Promise<LeadWithEtag>;
  update(id: string, input: LeadUpdateInput, options?: LeadUpdateOptions): Promise<LeadWithEtag>;
  delete(id: string, options?: RequestOptions): Promise<void>;
}

/** The plain-REST leads routes, beside the `leads.*` procedures. */
export interface LeadsRestClient {
  /** One page of `GET /api/v1/leads`. */
  list(filters?: LeadsListFilters, options?: RequestOptions): Promise<LeadsPage>;
  /** Every matching lead, walking the pages (`for await (const lead of client.leads.listAll())`). */
  listAll(filters?: LeadsWalkFilters, options?: RequestOptions): AsyncIterable<Lead>;
  rest: LeadsItemRestClient;
}

export type WorkspaceClient = Omit<ProcedureClients, 'leads'> & { leads: ProcedureClients['leads'] & LeadsRestClient };

export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 60_000;

export function createWorkspaceClient(options: WorkspaceClientOptions): WorkspaceClient {
  const fetchFn = options.fetch ?? (globalThis.fetch as unknown as FetchLike | undefined);
  if (!fetchFn) throw new TypeError('No global fetch (Node 20+ has one): pass `fetch` to createWorkspaceClient');
  const t: Transport = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    fetch: fetchFn,
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  const routers: Record<string, Record<string, unknown>> = {};
  for (const [name, method] of Object.entries(procedureMethods)) {
    const [router, procedure] = name.split('.') as [string, string];
    routers[router] ??= {};
    routers[router][procedure] = (input?: unknown, callOptions?: RequestOptions) => callProcedure(t, name, method, input, callOptions);
  }
  const rest: LeadsRestClient = {
    list: (filters, callOptions) => listLeads(t, filters, callOptions),
    listAll: (filters, callOptions) => walkLeads(t, filters, callOptions),
    rest: {
      create: (input, callOptions) => createLead(t, input, callOptions),
      get: (id, callOptions) => getLead(t, id, callOptions),
      update: (id, input, callOptions) => updateLead(t, id, input, callOptions),
      delete: (id, callOptions) => deleteLead(t, id, callOptions),
    },
  };
  routers.leads = Object.assign(routers.leads ?? {}, rest);
  return routers as unknown as WorkspaceClient;
}
