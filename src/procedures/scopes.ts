import { procedures } from '.';

let known: ReadonlySet<string> | undefined;

/**
 * The scopes a key may be given: those of procedures exposed to the API (scopes of app-only
 * procedures would open nothing). Computed on first call, not at load: apiKeys.create, which
 * calls it, is itself in the list it reads.
 */
export function knownScopes(): ReadonlySet<string> {
  known ??= new Set(procedures.filter((p) => p.exposed).map((p) => p.scope));
  return known;
}
