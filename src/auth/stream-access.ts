import type { KeyObject } from 'node:crypto';
import type { KeyAuthenticator } from './key-authenticator';
import type { Principal } from './principal';
import { unauthorized } from './jwt';
import { assertDeveloperAccess, type MemberAccessReader } from './developer-access';
import { verifyStreamToken, type StreamToken } from './stream-token';

export type StreamTokenAuthenticator = ReturnType<typeof createStreamTokenAuthenticator>;

/**
 * Who a stream token stands for, now: the key or playground token it was minted with, checked as
 * that credential would be on a call (revoked, expired, member gone), with no more scopes than
 * the token carries. Asked when the stream opens and at every re-check while it is open; the
 * token's own 5 minutes bound only when a stream may open.
 */
export function createStreamTokenAuthenticator(deps: { keys: KeyAuthenticator; tokenKey: KeyObject; readAccess: MemberAccessReader; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return {
    verify: (token: string): StreamToken => verifyStreamToken(deps.tokenKey, token),
    async principalOf(token: StreamToken): Promise<Principal> {
      const source = await sourceOf(token);
      return { ...source, scopes: new Set(token.scopes.filter((scope) => source.scopes.has(scope))) };
    },
  };

  async function sourceOf({ orgId, source, scopes }: StreamToken): Promise<Principal> {
    if (source.kind === 'apiKey') return deps.keys.authenticateKeyId(orgId, source.id);
    if (source.expiresAt && source.expiresAt.getTime() <= now()) throw unauthorized('The playground token behind this stream token has expired');
    const access = await deps.readAccess(orgId, source.memberId ?? '');
    if (!access) throw unauthorized('The playground token behind this stream token belongs to a member who no longer exists');
    assertDeveloperAccess(access);
    return { kind: 'playgroundToken', id: source.id, orgId, memberId: source.memberId, scopes: new Set(scopes), org: access.org };
  }
}
