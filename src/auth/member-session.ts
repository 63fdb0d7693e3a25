import { z } from 'zod';
import type { KeyObject } from 'node:crypto';
import { signHs256, unauthorized, verifyHs256 } from './jwt';
import { bearerCredentialOf } from './bearer';

/** Short-lived: in a deployment the app mints a new one at sign-in. */
export const MEMBER_SESSION_TTL_SECONDS = 12 * 60 * 60;

/** A signed-in member of the app: opens the developer page, never the action endpoints. */
export interface MemberSession {
  memberId: string;
  orgId: string;
  expiresAt: Date;
}

const claims = z.object({
  sub: z.string().min(1),
  org: z.string().min(1),
  typ: z.literal('member_session'),
  iat: z.number().int(),
  exp: z.number().int(),
});

export function signMemberSession(key: KeyObject, input: { memberId: string; orgId: string }, now = Date.now()): { token: string; expiresAt: Date } {
  const iat = Math.floor(now / 1000);
  const exp = iat + MEMBER_SESSION_TTL_SECONDS;
  const token = signHs256({ sub: input.memberId, org: input.orgId, typ: 'member_session', iat, exp }, key);
  return { token, expiresAt: new Date(exp * 1000) };
}

/** Throws a 401 for anything but a valid, unexpired member session signed with `key`. */
export function verifyMemberSession(key: KeyObject, token: string): MemberSession {
  const c = verifyHs256(token, key, claims, 'member session');
  return { memberId: c.sub, orgId: c.org, expiresAt: new Date(c.exp * 1000) };
}


/**
 * `Authorization: Bearer <member session>`, the only way into the developer page. API keys and
 * playground tokens are refused with 401 (a token is signed with the other secret and typed
 * `playground`, so it fails verification here).
 */
export function authenticateMemberSession(key: KeyObject, authorization: string | undefined): MemberSession {
  if (!authorization) throw unauthorized('Missing Authorization header: send Authorization: Bearer <member session>');
  const value = bearerCredentialOf(authorization);
  if (!value) throw unauthorized('Malformed Authorization header: expected Bearer <member session>');
  if (value.startsWith('wsk_')) throw unauthorized('An API key cannot open the developer page: send a member session');
  return verifyMemberSession(key, value);
}
