import type { Response } from 'express';
import type { Principal } from '../auth/principal';

/** Who the request authenticated as, for its log line (org and key ids only, never the secret). */
export function principalOf(res: Response): Principal | undefined {
  return res.locals.principal as Principal | undefined;
}

/**
 * Remembers the caller once its key is verified, so a call refused later (rate limit, scope,
 * input, not found) is still logged with its org and key. The dispatcher stays free of Express.
 */
export function recordPrincipal(res: Response, principal: Principal): void {
  res.locals.principal = principal;
}
