import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure, TRPCSubscriptionProcedure } from '@trpc/server';
import type { procedureMethods } from './generated/procedure-methods.js';
import type { subscriptions } from './generated/subscriptions.js';
import type { ProcedureInput, ProcedureName, ProcedureOutput, RouterName, SubscriptionInput, SubscriptionName, SubscriptionValue } from './procedures.js';
import type { WorkspaceEvent, WorkspaceEventAsSent } from './events.js';
import type { ApiFieldIssue } from './workspace-api-error.js';

/** The error shape the service sends, as `TRPCClientError<AppRouter>['shape']` reads it. */
export interface AppRouterErrorShape {
  message: string;
  /** The JSON-RPC number. */
  code: number;
  data: { code: string; httpStatus: number; path?: string; issues?: ApiFieldIssue[] };
}

interface AppRouterRoot {
  ctx: object;
  meta: object;
  errorShape: AppRouterErrorShape;
  /** superjson: outputs arrive as they were sent (Dates as Dates), not JSON-serialised. */
  transformer: true;
}

/**
 * The official client revives what superjson's `meta` names; an event's `data` holds the objects
 * as they were recorded (date-times as ISO text, not named), so it holds events as sent.
 */
type EventsAsSent<O> = O extends WorkspaceEvent ? WorkspaceEventAsSent : O extends { data: WorkspaceEvent[] } ? Omit<O, 'data'> & { data: WorkspaceEventAsSent[] } : O;

type ProcedureDef<N extends ProcedureName> = { meta: object; input: ProcedureInput<N>; output: EventsAsSent<ProcedureOutput<N>>; errorShape: AppRouterErrorShape };

type TrpcProcedure<N extends ProcedureName> = (typeof procedureMethods)[N] extends 'GET' ? TRPCQueryProcedure<ProcedureDef<N>> : TRPCMutationProcedure<ProcedureDef<N>>;

/**
 * A subscription's values (Server-Sent Events, for `httpSubscriptionLink`). A tracked value
 * arrives as `{ id, data }`, as tRPC's `tracked()` values do: `id` is the event's id, the point a
 * reconnection resumes from.
 */
type Streamed<N extends SubscriptionName> = (typeof subscriptions)[N]['tracked'] extends true
  ? { id: string; data: EventsAsSent<SubscriptionValue<N>> }
  : EventsAsSent<SubscriptionValue<N>>;

type TrpcSubscription<N extends SubscriptionName> = TRPCSubscriptionProcedure<{
  meta: object; input: SubscriptionInput<N>; output: AsyncIterable<Streamed<N>>; errorShape: AppRouterErrorShape;
}>;

type AppRouterRecord = {
  [R in RouterName]: {
    [N in ProcedureName as N extends `${R}.${infer P}` ? P : never]: TrpcProcedure<N>;
  } & {
    [N in SubscriptionName as N extends `${R}.${infer P}` ? P : never]: TrpcSubscription<N>;
  };
};

/**
 * The service's procedures as a tRPC router type, for the official client:
 * `createTRPCClient<AppRouter>({ links: [httpLink({ url: `${baseUrl}/api/v1/rpc`, transformer: superjson, headers })] })`.
 * Built from `@trpc/server`'s exported types only (a type import; nothing of tRPC runs), from the
 * same generated types as `createWorkspaceClient`: reads are queries, writes mutations, and
 * subscriptions (`events.onEvent`, `dashboard.onLeadStats`) for `httpSubscriptionLink`.
 */
export type AppRouter = TRPCBuiltRouter<AppRouterRoot, AppRouterRecord>;
