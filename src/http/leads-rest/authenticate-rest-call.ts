import type { Request, Response } from 'express';
import type { Principal } from '../../auth/principal';
import { recordPrincipal } from '../../observability/request-principal';
import { authenticateWithinLimits } from '../../ratelimit/authenticate-within-limits';
import type { RateLimiter } from '../../ratelimit/rate-limiter';

/**
 * Who calls a REST leads route, in the action endpoints' order: the client address's budget ->
 * authenticate -> the key's budget (rate-limit fields set on the answer); the caller is recorded
 * for the request log even when a later check refuses the call. `cost`: how many requests the call
 * counts as against the key's budget (1; an export more).
 */
export function authenticateRestCall(
  deps: { authenticate(authorization: string | undefined): Promise<Principal>; rateLimiter?: RateLimiter },
  req: Request,
  res: Response,
  cost = 1,
): Promise<Principal> {
  const limits = deps.rateLimiter?.forCall(req.ip, (fields) => res.set(fields), cost);
  return authenticateWithinLimits(deps.authenticate, req.headers.authorization, limits, (principal) => recordPrincipal(res, principal));
}
