import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
import type { procedureMethods } from './generated/procedure-methods.js';
import type { ProcedureInput, ProcedureName, ProcedureOutput, RouterName } from './procedures.js';
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

type ProcedureDef<N extends ProcedureName> = { meta: object; input: ProcedureInput<N>; output: ProcedureOutput<N>; errorShape: AppRouterErrorShape };

type TrpcProcedure<N extends ProcedureName> = (typeof procedureMethods)[N] extends 'GET' ? TRPCQueryProcedure<ProcedureDef<N>> : TRPCMutationProcedure<ProcedureDef<N>>;

type AppRouterRecord = {
  [R in RouterName]: {
    [N in ProcedureName as N extends `${R}.${infer P}` ? P : never]: TrpcProcedure<N>;
  };
};

/**
 * The service's procedures as a tRPC router type, for the official client:
 * `createTRPCClient<AppRouter>({ links: [httpLink({ url: `${baseUrl}/api/v1/rpc`, transformer: superjson, headers })] })`.
 * Built from `@trpc/server`'s exported types only (a type import; nothing of tRPC runs), from the
 * same generated types as `createWorkspaceClient`: reads are queries, writes mutations.
 */
export type AppRouter = TRPCBuiltRouter<AppRouterRoot, AppRouterRecord>;
