import type { KeyObject } from 'node:crypto';
import type { KeyAuthenticator } from './key-authenticator';
import type { Principal } from './principal';
import { looksLikeJwt, unauthorized } from './jwt';
import { bearerCredentialOf } from './bearer';
import { verifyPlaygroundToken } from './playground-token';
import { assertDeveloperAccess, type MemberAccessReader } from './developer-access';


/**
 * Authentication of the action endpoints and the REST list: an API key, or a playground test
 * token. Anything that is not a JWT (keys, garbage, a missing or malformed header) takes the key
 * path unchanged. A token is verified (HS256 pinned, so a member session, signed with the other
 * secret, is refused), then its member and workspace are re-read: DEVELOPER and DEVELOPER_API are
 * required on every use, and the tier, exposed and scope checks that follow are those of a key.
 */
export function createAuthenticator(deps: { keys: KeyAuthenticator; tokenKey: KeyObject; readAccess: MemberAccessReader }) {
  return async function authenticate(authorization: string | undefined): Promise<Principal> {
    const bearer = bearerCredentialOf(authorization);
    if (!bearer) return deps.keys.authenticate(authorization);
    if (!looksLikeJwt(bearer)) return deps.keys.authenticateSecret(bearer);
    const token = verifyPlaygroundToken(deps.tokenKey, bearer);
    const access = await deps.readAccess(token.orgId, token.memberId);
    if (!access) throw unauthorized('The playground token belongs to a member who no longer exists');
    assertDeveloperAccess(access);
    return { kind: 'playgroundToken', id: token.id, orgId: token.orgId, memberId: token.memberId, scopes: new Set(token.scopes), org: access.org, expiresAt: token.expiresAt };
  };
}
