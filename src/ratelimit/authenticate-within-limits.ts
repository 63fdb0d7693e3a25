import { AppError } from '../errors/app-error';
import type { Principal } from '../auth/principal';
import type { CallLimits } from './rate-limiter';

/**
 * Authentication inside the rate limits, the same for the action endpoints and the REST list:
 * address past its failed-authentication budget (429) -> authenticate (401, counted against the
 * address) -> the key's budget (429). Without limits (rate limiting off) it is authentication alone.
 */
export async function authenticateWithinLimits(
  authenticate: (authorization: string | undefined) => Promise<Principal>,
  authorization: string | undefined,
  limits: CallLimits | undefined,
  /** Told who called as soon as the key is verified, before its budget: a 429 is still logged with its caller. */
  onAuthenticated?: (principal: Principal) => void,
): Promise<Principal> {
  if (limits) await limits.checkAddress();
  let principal: Principal;
  try {
    principal = await authenticate(authorization);
  } catch (err) {
    if (limits && err instanceof AppError && err.code === 'UNAUTHORIZED') await limits.countFailedAuthentication();
    throw err;
  }
  onAuthenticated?.(principal);
  if (limits) await limits.consume(principal);
  return principal;
}
