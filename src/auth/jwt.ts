import jwt from 'jsonwebtoken';
import type { KeyObject } from 'node:crypto';
import type { z } from 'zod';
import { AppError } from '../errors/app-error';

export const BEARER_REALM = { 'WWW-Authenticate': 'Bearer realm="workspace-api"' };

export function unauthorized(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { headers: BEARER_REALM });
}

/** Three base64url segments: what a JWT looks like, as opposed to an API key or garbage. */
export function looksLikeJwt(value: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);
}

/** The payload carries its own iat and exp, which jsonwebtoken keeps as given. */
export function signHs256(payload: object, key: KeyObject): string {
  return jwt.sign(payload, key, { algorithm: 'HS256' });
}

/**
 * Verifies an HS256 JWT and checks its claims' shape. The algorithm is pinned, so `alg: none`
 * or a token signed with another algorithm is refused; every failure is one 401 naming `what`.
 */
export function verifyHs256<T>(token: string, key: KeyObject, claims: z.ZodType<T>, what: string): T {
  let decoded: unknown;
  try {
    decoded = jwt.verify(token, key, { algorithms: ['HS256'] });
  } catch (err) {
    if (err instanceof jwt.TokenExpiredError) throw unauthorized(`The ${what} has expired`);
    throw unauthorized(`Invalid ${what}`);
  }
  const parsed = claims.safeParse(decoded);
  if (!parsed.success) throw unauthorized(`Invalid ${what}`);
  return parsed.data;
}
