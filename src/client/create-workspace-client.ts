import { procedureMethods, type ClientProcedureName } from './procedure-methods';
import type { RouterClients } from './registry-types';
import { listLeads, walkLeads, type Lead, type LeadsListFilters, type LeadsPage, type LeadsWalkFilters } from './leads-list';
import { callProcedure, type FetchLike, type Transport } from './transport';

export interface WorkspaceClientOptions {
  /** Where the service answers, without `/api/v1` (e.g. `https://api.example.com`). */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
}

/** The plain-REST leads list, beside the `leads.*` procedures. */
export interface LeadsRestClient {
  list(filters?: LeadsListFilters): Promise<LeadsPage>;
  listAll(filters?: LeadsWalkFilters): AsyncIterable<Lead>;
}

type Procedures = RouterClients<ClientProcedureName>;

export type WorkspaceClient = Omit<Procedures, 'leads'> & { leads: Procedures['leads'] & LeadsRestClient };

export function createWorkspaceClient(options: WorkspaceClientOptions): WorkspaceClient {
  const transport: Transport = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    fetch: options.fetch ?? (globalThis.fetch as unknown as FetchLike),
  };
  const routers: Record<string, Record<string, unknown>> = {};
  for (const [name, method] of Object.entries(procedureMethods)) {
    const [router, procedure] = name.split('.') as [string, string];
    routers[router] ??= {};
    routers[router][procedure] = (input?: unknown) => callProcedure(transport, name, method, input);
  }
  const leads: LeadsRestClient = {
    list: (filters) => listLeads(transport, filters),
    listAll: (filters) => walkLeads(transport, filters),
  };
  Object.assign(routers.leads!, leads);
  return routers as unknown as WorkspaceClient;
}
