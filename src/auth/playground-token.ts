import { z } from 'zod';
import type { KeyObject } from 'node:crypto';
import { randomBase62 } from '../domain/base62';
import { signHs256, verifyHs256 } from './jwt';

/** The spec: a test token is valid for exactly one hour. */
export const PLAYGROUND_TOKEN_TTL_SECONDS = 60 * 60;

export interface PlaygroundToken {
  /** The token's id (jti): what logs name as the actor, never the token itself. */
  id: string;
  memberId: string;
  orgId: string;
  scopes: string[];
  expiresAt: Date;
}

const claims = z.object({
  sub: z.string().min(1),
  org: z.string().min(1),
  typ: z.literal('playground'),
  scopes: z.array(z.string()),
  jti: z.string().min(1),
  iat: z.number().int(),
  exp: z.number().int(),
});

/** exp is set to iat + 3600 by hand rather than through `expiresIn`, so "exactly one hour" is visible here. */
export function signPlaygroundToken(
  key: KeyObject,
  input: { memberId: string; orgId: string; scopes: string[] },
  now = Date.now(),
): { token: string; id: string; expiresAt: Date } {
  const iat = Math.floor(now / 1000);
  const exp = iat + PLAYGROUND_TOKEN_TTL_SECONDS;
  const id = `tok_${randomBase62(22)}`;
  const token = signHs256({ sub: input.memberId, org: input.orgId, typ: 'playground', scopes: input.scopes, jti: id, iat, exp }, key);
  return { token, id, expiresAt: new Date(exp * 1000) };
}

/** Throws a 401 for anything but a valid, unexpired playground token signed with `key`. */
export function verifyPlaygroundToken(key: KeyObject, token: string): PlaygroundToken {
  const c = verifyHs256(token, key, claims, 'playground token');
  return { id: c.jti, memberId: c.sub, orgId: c.org, scopes: c.scopes, expiresAt: new Date(c.exp * 1000) };
}
