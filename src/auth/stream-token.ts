import { z } from 'zod';
import type { KeyObject } from 'node:crypto';
import { randomBase62 } from '../domain/base62';
import { signHs256, verifyHs256 } from './jwt';
import type { Principal } from './principal';

/** At most 5 minutes: long enough to open a stream (and for EventSource to reconnect), short if a URL leaks. */
export const STREAM_TOKEN_TTL_SECONDS = 5 * 60;

/**
 * A browser's EventSource cannot send headers, so it shows this in the query string instead of
 * the key: signed, short-lived, good for one subscription, carrying no more scopes than that
 * subscription reads with, and naming (never containing) the key or playground token behind it.
 */
export interface StreamToken {
  id: string;
  /** The subscription it opens, and no other endpoint. */
  procedure: string;
  scopes: string[];
  orgId: string;
  /** What it was minted with; the stream lives only as long as that stays valid. */
  source: { kind: Principal['kind']; id: string; memberId: string | null; expiresAt: Date | null };
  expiresAt: Date;
}

const claims = z.object({
  typ: z.literal('stream'),
  jti: z.string().min(1),
  proc: z.string().min(1),
  org: z.string().min(1),
  scopes: z.array(z.string()),
  src: z.object({ kind: z.enum(['apiKey', 'playgroundToken']), id: z.string().min(1), member: z.string().nullable(), exp: z.number().int().nullable() }),
  iat: z.number().int(),
  exp: z.number().int(),
});

export function signStreamToken(
  key: KeyObject,
  input: { procedure: string; scopes: string[]; principal: Principal; sourceExpiresAt: Date | null },
  now = Date.now(),
): { token: string; id: string; expiresAt: Date } {
  const iat = Math.floor(now / 1000);
  const sourceExp = input.sourceExpiresAt ? Math.floor(input.sourceExpiresAt.getTime() / 1000) : null;
  // Never outlives what it was minted with.
  const exp = Math.min(iat + STREAM_TOKEN_TTL_SECONDS, sourceExp ?? Infinity);
  const id = `stk_${randomBase62(22)}`;
  const { principal } = input;
  const token = signHs256({
    typ: 'stream', jti: id, proc: input.procedure, org: principal.orgId, scopes: input.scopes,
    src: { kind: principal.kind, id: principal.id, member: principal.memberId, exp: sourceExp }, iat, exp,
  }, key);
  return { token, id, expiresAt: new Date(exp * 1000) };
}

/** Throws a 401 for anything but a valid, unexpired stream token signed with `key` (a playground token is not one). */
export function verifyStreamToken(key: KeyObject, token: string): StreamToken {
  const c = verifyHs256(token, key, claims, 'stream token');
  return {
    id: c.jti, procedure: c.proc, scopes: c.scopes, orgId: c.org, expiresAt: new Date(c.exp * 1000),
    source: { kind: c.src.kind, id: c.src.id, memberId: c.src.member, expiresAt: c.src.exp === null ? null : new Date(c.src.exp * 1000) },
  };
}
