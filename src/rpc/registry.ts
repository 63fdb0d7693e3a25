import type { Procedure } from './define-procedure';
import type { Subscription } from './define-subscription';
import { checkedFieldsOf } from './field-checks';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProcedure = Procedure<any, any>;
export type Registry = ReadonlyMap<string, AnyProcedure>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySubscription = Subscription<any, any>;
/** Subscriptions are a third kind beside reads and writes: streamed, so kept apart from what answers once. */
export type SubscriptionRegistry = ReadonlyMap<string, AnySubscription>;

const NAME = /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/;
// `erase` is contacts.erase's (a write no preset grants: src/auth/scopes.ts OPT_IN_SCOPES).
const SCOPE = /^[a-z][A-Za-z]*\.(read|create|update|delete|erase)$/;

/**
 * Builds the lookup table of procedures, refusing at start-up (not at request time) a duplicate
 * name, a missing scope, exposed flag or input or output schema, a read that is not a GET, or a checked field (an id that
 * must exist) where its check would not run: a hole in the table would otherwise be a hole in
 * access control.
 */
export function createRegistry(procedures: readonly AnyProcedure[]): Registry {
  const registry = new Map<string, AnyProcedure>();
  for (const procedure of procedures) {
    const where = `procedure ${JSON.stringify(procedure.name)}`;
    if (typeof procedure.name !== 'string' || !NAME.test(procedure.name)) throw new Error(`${where}: name must be <router>.<procedure>`);
    if (registry.has(procedure.name)) throw new Error(`${where}: defined twice`);
    if (procedure.method !== 'GET' && procedure.method !== 'POST') throw new Error(`${where}: method must be GET or POST`);
    if (typeof procedure.scope !== 'string' || !SCOPE.test(procedure.scope)) throw new Error(`${where}: scope must be <resource>.<read|create|update|delete|erase>`);
    if ((procedure.method === 'GET') !== procedure.scope.endsWith('.read')) throw new Error(`${where}: reads are GET with a .read scope, writes are POST`);
    for (const scope of procedure.alsoScopes ?? []) {
      if (typeof scope !== 'string' || !SCOPE.test(scope) || scope.endsWith('.read') !== (procedure.method === 'GET')) {
        throw new Error(`${where}: alsoScopes must be scopes of its kind (${procedure.method === 'GET' ? 'reads' : 'writes'})`);
      }
    }
    if (typeof procedure.exposed !== 'boolean') throw new Error(`${where}: exposed must be stated (true or false)`);
    if (!procedure.input || typeof procedure.input.safeParse !== 'function') throw new Error(`${where}: needs a zod input schema`);
    if (!procedure.output || typeof procedure.output.safeParse !== 'function') throw new Error(`${where}: needs a zod output schema`);
    if (typeof procedure.handler !== 'function') throw new Error(`${where}: needs a handler`);
    try {
      checkedFieldsOf(procedure.input);
    } catch (err) {
      throw new Error(`${where}: ${(err as Error).message}`);
    }
    if (procedure.deprecated) assertValidDeprecation(where, procedure.deprecated);
    registry.set(procedure.name, procedure);
  }
  return registry;
}

const SIX_MONTHS_MS = 182 * 24 * 60 * 60 * 1000;

function assertValidDeprecation(where: string, deprecation: NonNullable<AnyProcedure['deprecated']>): void {
  const since = Date.parse(deprecation.since);
  const sunset = Date.parse(deprecation.sunset);
  if (Number.isNaN(since) || Number.isNaN(sunset)) throw new Error(`${where}: deprecated.since and .sunset must be ISO 8601 dates`);
  if (sunset - since < SIX_MONTHS_MS) throw new Error(`${where}: a deprecated procedure lives at least six months before its sunset`);
}

/**
 * The lookup table of subscriptions, refusing at start-up what createRegistry refuses of a read
 * (a subscription reads, with a .read scope), and a name that a procedure already has.
 */
export function buildSubscriptionRegistry(subscriptions: readonly AnySubscription[], procedures: Registry): SubscriptionRegistry {
  const registry = new Map<string, AnySubscription>();
  for (const subscription of subscriptions) {
    const where = `subscription ${JSON.stringify(subscription.name)}`;
    if (typeof subscription.name !== 'string' || !NAME.test(subscription.name)) throw new Error(`${where}: name must be <router>.<procedure>`);
    if (registry.has(subscription.name) || procedures.has(subscription.name)) throw new Error(`${where}: defined twice`);
    if (typeof subscription.scope !== 'string' || !SCOPE.test(subscription.scope) || !subscription.scope.endsWith('.read')) {
      throw new Error(`${where}: scope must be <resource>.read`);
    }
    if (typeof subscription.exposed !== 'boolean') throw new Error(`${where}: exposed must be stated (true or false)`);
    if (!subscription.input || typeof subscription.input.safeParse !== 'function') throw new Error(`${where}: needs a zod input schema`);
    if (!subscription.output || typeof subscription.output.safeParse !== 'function') throw new Error(`${where}: needs a zod output schema`);
    if (typeof subscription.open !== 'function') throw new Error(`${where}: needs open()`);
    registry.set(subscription.name, subscription);
  }
  return registry;
}
