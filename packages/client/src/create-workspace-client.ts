import { procedureMethods } from './generated/procedure-methods.js';
import { subscriptions } from './generated/subscriptions.js';
import type { ProcedureClients, SubscriptionInput, SubscriptionName, SubscriptionValue } from './procedures.js';
import { reviveEvent, type WorkspaceEventOf, type WorkspaceEventType } from './events.js';
import { openSubscription, type SubscriptionOptions } from './subscribe.js';
import {
  createLead,
  deleteLead,
  getLead,
  listLeads,
  updateLead,
  upsertLeadByExternalId,
  walkLeads,
  type Lead,
  type LeadCreateInput,
  type LeadsListFilters,
  type LeadsPage,
  type LeadsWalkFilters,
  type LeadUpdateInput,
  type LeadUpdateOptions,
  type LeadUpsertInput,
  type LeadWithEtag,
} from './leads-rest.js';
import { exportLeads, type LeadsExportOptions } from './leads-export.js';
import { callProcedure } from './rpc.js';
import { createImport, waitForImport, type Import, type ImportCreateOptions, type ImportFile, type ImportWaitOptions } from './imports-rest.js';
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

/** The single-lead REST routes: `POST /api/v1/leads`, `GET`, `PATCH` and `DELETE /api/v1/leads/{id}`, `PUT /api/v1/leads/external/{externalId}`. */
export interface LeadsItemRestClient {
  create(input: LeadCreateInput, options?: RequestOptions): Promise<LeadWithEtag>;
  get(id: string, options?: RequestOptions): Promise<LeadWithEtag>;
  update(id: string, input: LeadUpdateInput, options?: LeadUpdateOptions): Promise<LeadWithEtag>;
  /** `PUT /api/v1/leads/external/{externalId}`: creates or changes the lead holding the external id. */
  upsertByExternalId(externalId: string, input: LeadUpsertInput, options?: LeadUpdateOptions): Promise<LeadWithEtag & { created: boolean }>;
  delete(id: string, options?: RequestOptions): Promise<void>;
}

/** The plain-REST leads routes, beside the `leads.*` procedures. */
export interface LeadsRestClient {
  /** One page of `GET /api/v1/leads`. */
  list(filters?: LeadsListFilters, options?: RequestOptions): Promise<LeadsPage>;
  /** Every matching lead, walking the pages (`for await (const lead of client.leads.listAll())`). */
  listAll(filters?: LeadsWalkFilters, options?: RequestOptions): AsyncIterable<Lead>;
  /**
   * Every matching lead from one snapshot, streamed (`GET /api/v1/leads/export` as NDJSON):
   * `for await (const lead of client.leads.export({ filters: { status: 'QUALIFIED' } }))`.
   * Complete and consistent where `listAll`'s pages are not; one request.
   */
  export(options?: LeadsExportOptions): AsyncIterable<Lead>;
  rest: LeadsItemRestClient;
}

export interface EventsSubscribeOptions<T extends WorkspaceEventType = WorkspaceEventType> extends SubscriptionOptions {
  /** Only these types (each needs its resource's read scope); every type the key may read when left out. */
  types?: readonly T[];
  /** Start after this event, first catching up on every event since; from now when left out. */
  lastEventId?: string | null;
}

export interface EventsStreamClient {
  /**
   * The workspace's events as they happen (`events.onEvent`), typed by `type`:
   * `for await (const event of api.events.subscribe({ types: ['invoice.paid'] })) event.data.object.paidAt`.
   * Reconnects by itself and resumes after the last event it yielded; ends on the server's `return`;
   * throws a WorkspaceApiError when the key is revoked or loses `events.read`, or on a bad input.
   */
  subscribe<T extends WorkspaceEventType = WorkspaceEventType>(options?: EventsSubscribeOptions<T>): AsyncIterable<WorkspaceEventOf<T>>;
}

/** `api.<router>.<subscription>(input?, options?)` for every exposed subscription (`api.dashboard.onLeadStats(range)`). */
export type SubscriptionClients = {
  [R in SubscriptionName extends `${infer Router}.${string}` ? Router : never]: {
    [N in SubscriptionName as N extends `${R}.${infer P}` ? P : never]: (input?: SubscriptionInput<N>, options?: SubscriptionOptions) => AsyncIterable<SubscriptionValue<N>>;
  };
};

type RouterClients = {
  [R in keyof ProcedureClients]: ProcedureClients[R] & (R extends keyof SubscriptionClients ? SubscriptionClients[R] : unknown);
};

/** Import jobs beside the `imports.*` procedures: the upload (REST: the file is the body) and a wait for the end. */
export interface ImportsClient {
  /** `POST /api/v1/imports`: the queued import (docs/importing-and-exporting.md). */
  create(file: ImportFile, options?: ImportCreateOptions): Promise<Import>;
  /** Reads the import until it has ended. */
  wait(id: string, options?: ImportWaitOptions): Promise<Import>;
}

export type WorkspaceClient = Omit<RouterClients, 'leads' | 'events' | 'imports'> & {
  leads: RouterClients['leads'] & LeadsRestClient;
  imports: RouterClients['imports'] & ImportsClient;
  events: RouterClients['events'] & EventsStreamClient;
};

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
    export: ({ filters, ...callOptions } = {}) => exportLeads(t, filters, callOptions),
    rest: {
      create: (input, callOptions) => createLead(t, input, callOptions),
      get: (id, callOptions) => getLead(t, id, callOptions),
      update: (id, input, callOptions) => updateLead(t, id, input, callOptions),
      upsertByExternalId: (externalId, input, callOptions) => upsertLeadByExternalId(t, externalId, input, callOptions),
      delete: (id, callOptions) => deleteLead(t, id, callOptions),
    },
  };
  routers.leads = Object.assign(routers.leads ?? {}, rest);
  const imports: ImportsClient = { create: (file, options) => createImport(t, file, options), wait: (id, options) => waitForImport(t, id, options) };
  routers.imports = Object.assign(routers.imports ?? {}, imports);
  for (const [name, { tracked }] of Object.entries(subscriptions)) {
    const [router, procedure] = name.split('.') as [string, string];
    routers[router] ??= {};
    routers[router][procedure] = (input?: Record<string, unknown>, options: SubscriptionOptions = {}) =>
      openSubscription(t, name, input, {
        ...options,
        tracked,
        lastEventId: typeof input?.lastEventId === 'string' ? input.lastEventId : undefined,
        // Events hold the objects as they were recorded, date-times as ISO text: revived here (events.ts).
        revive: name === 'events.onEvent' ? reviveEvent : (value) => value,
      });
  }
  const getAll = routers.events?.getAll as ((input?: unknown, callOptions?: RequestOptions) => Promise<{ data: unknown[] }>) | undefined;
  const onEvent = routers.events?.onEvent as ((input?: Record<string, unknown>, options?: SubscriptionOptions) => AsyncIterable<unknown>) | undefined;
  routers.events = Object.assign(routers.events ?? {}, {
    getAll: async (input?: unknown, callOptions?: RequestOptions) => {
      const page = await getAll!(input, callOptions);
      page.data.forEach(reviveEvent);
      return page;
    },
    subscribe: ({ types, lastEventId, ...options }: EventsSubscribeOptions = {}) =>
      onEvent!({ ...(types === undefined ? {} : { types: [...types] }), ...(lastEventId ? { lastEventId } : {}) }, options),
  });
  return routers as unknown as WorkspaceClient;
}
