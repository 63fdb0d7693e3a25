import type { z } from 'zod';
import type { procedures } from '../procedures';

/**
 * Call signatures inferred from the server's registry. Type-only imports: the compiled client
 * loads nothing of the server (no knex, no handlers); only the types travel.
 */
type AnyRegistered = (typeof procedures)[number];

export type ProcedureName = AnyRegistered['name'];

type Named<N extends ProcedureName> = Extract<AnyRegistered, { name: N }>;

export type ProcedureInput<N extends ProcedureName> = z.input<Named<N>['input']>;

export type ProcedureOutput<N extends ProcedureName> = Awaited<ReturnType<Named<N>['handler']>>;

/** The input may be left out exactly when the schema accepts `undefined` (e.g. list filters). */
export type ProcedureCall<N extends ProcedureName> = undefined extends ProcedureInput<N>
  ? (input?: ProcedureInput<N>) => Promise<ProcedureOutput<N>>
  : (input: ProcedureInput<N>) => Promise<ProcedureOutput<N>>;

type RouterOf<N extends string> = N extends `${infer R}.${string}` ? R : never;

/** `client[router][procedure](input)`, for the procedure names in `Names`. */
export type RouterClients<Names extends ProcedureName> = {
  [R in RouterOf<Names>]: {
    [N in Names as N extends `${R}.${infer P}` ? P : never]: ProcedureCall<N>;
  };
};
