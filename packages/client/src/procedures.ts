import type { components, paths } from './generated/openapi.js';
import type { procedureMethods, ProcedureWithOptionalInput } from './generated/procedure-methods.js';
import type { subscriptions } from './generated/subscriptions.js';
import type { RequestOptions } from './transport.js';

/**
 * Each procedure's input and output, read from the types generated from the OpenAPI document
 * (src/generated/openapi.ts): the output is the `result.data.json` of the 200 answer of
 * `/api/v1/rpc/<name>`, the input the component `<name>.input`. Date-time fields are Dates in
 * outputs (superjson revives them) and `Date | string` in inputs.
 */
export type ProcedureName = keyof typeof procedureMethods;

type OperationOf<N extends ProcedureName> = paths[`/api/v1/rpc/${N}`] extends { [M in Lowercase<(typeof procedureMethods)[N]>]: infer O } ? O : never;

type SuccessJson<O> = O extends { responses: { 200: { content: { 'application/json': { result: { data: { json: infer J } } } } } } } ? J : unknown;

type InputSchema<N extends ProcedureName> = `${N}.input` extends keyof components['schemas'] ? components['schemas'][`${N}.input`] : never;

export type ProcedureInput<N extends ProcedureName> = N extends ProcedureWithOptionalInput ? InputSchema<N> | undefined : InputSchema<N>;

export type ProcedureOutput<N extends ProcedureName> = SuccessJson<OperationOf<N>>;

/** `(input, options?)`; the input may be left out exactly when the procedure takes none. */
export type ProcedureCall<N extends ProcedureName> = N extends ProcedureWithOptionalInput
  ? (input?: ProcedureInput<N>, options?: RequestOptions) => Promise<ProcedureOutput<N>>
  : (input: ProcedureInput<N>, options?: RequestOptions) => Promise<ProcedureOutput<N>>;

export type RouterName = ProcedureName extends `${infer R}.${string}` ? R : never;

/** `client[router][procedure](input, options?)` for every exposed procedure. */
export type ProcedureClients = {
  [R in RouterName]: {
    [N in ProcedureName as N extends `${R}.${infer P}` ? P : never]: ProcedureCall<N>;
  };
};

/** Each subscription's input and value (one streamed value), from the same generated types. */
export type SubscriptionName = keyof typeof subscriptions;
type SubscriptionInputSchema<N extends SubscriptionName> = components['schemas'][`${N}.input`];
export type SubscriptionInput<N extends SubscriptionName> = (typeof subscriptions)[N]['optionalInput'] extends true ? SubscriptionInputSchema<N> | undefined : SubscriptionInputSchema<N>;
export type SubscriptionValue<N extends SubscriptionName> = components['schemas'][`${N}.output`];
