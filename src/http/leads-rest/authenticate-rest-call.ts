import type { Request, Response } from 'express';
import type { Principal } from '../../auth/principal';
import { recordPrincipal } from '../../observability/request-principal';
import { authenticateWithinLimits } from '../../ratelimit/authenticate-within-limits';
import type { RateLimiter } from '../../ratelimit/rate-limiter';

/**
 * Who calls a REST leads route, in the action endpoints' order: the client address's budget ->
 * authenticate -> the key's budget (rate-limit fields set on the answer); the caller is recorded
 * for the request log even when a later check refuses the call.
 */
export function authenticateRestCall(
  deps: { authenticate(authorization: string | undefined): Promise<Principal>; rateLimiter?: RateLimiter },
  req: Request,
  res: Response,
): Promise<Principal> {
  const limits = deps.rateLimiter?.forCall(req.ip, (fields) => res.set(fields));
  return authenticateWithinLimits(deps.authenticate, req.headers.authorization, limits, (principal) => recordPrincipal(res, principal));
}
