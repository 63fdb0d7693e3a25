import { listOf, text } from './fields';

/**
 * Most scopes one key or token may be asked for: every scope there is (KNOWN_SCOPES, 26 today)
 * with room for a few more; a duplicate counts, and is dropped when the key or token is made.
 * tests/unit/input-bounds.test.ts fails once there are more scopes than this.
 */
export const MAX_SCOPES = 40;

/** Longest scope name taken (the longest today is 15 characters). */
export const MAX_SCOPE_LENGTH = 64;

/**
 * A list of scope names as a caller sends it. Whether each names a known scope is checked where
 * the key or token is made (issueApiKey, the playground), with the list it may be given.
 */
export function scopeListField(emptyMessage?: string) {
  const scope = text(MAX_SCOPE_LENGTH, { what: `a scope name of at most ${MAX_SCOPE_LENGTH} characters, e.g. leads.read` });
  return listOf(scope, { of: 'scope names', min: 1, max: MAX_SCOPES, emptyMessage });
}
