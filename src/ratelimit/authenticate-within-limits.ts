import { AppError } from '../errors/app-error';
import type { Principal } from '../auth/principal';
import type { CallLimits } from './rate-limiter';

/**
 * Authentication inside the rate limits, the same for the action endpoints and the REST list:
 * take a unit of the address's failed-authentication budget (429 when spent) -> authenticate
 * (401: the unit stays taken; otherwise it is given back) -> the key's budget (429). The unit is
 * taken before the key is looked up, so simultaneous guesses cannot outrun the budget. Without
 * limits (rate limiting off) it is authentication alone.
 */
export async function authenticateWithinLimits(
  authenticate: (authorization: string | undefined) => Promise<Principal>,
  authorization: string | undefined,
  limits: CallLimits | undefined,
  /** Told who called as soon as the key is verified, before its budget: a 429 is still logged with its caller. */
  onAuthenticated?: (principal: Principal) => void,
): Promise<Principal> {
  if (!limits) {
    const principal = await authenticate(authorization);
    onAuthenticated?.(principal);
    return principal;
  }
  const attempt = await limits.beginAuthentication();
  let principal: Principal;
  try {
    principal = await authenticate(authorization);
  } catch (err) {
    if (err instanceof AppError && err.code === 'UNAUTHORIZED') await attempt.failed();
    else await attempt.giveBack();
    throw err;
  }
  onAuthenticated?.(principal);
  // Independent counters: giving the unit back beside the key's count costs one round trip to Redis, not two.
  const [, consumed] = await Promise.allSettled([attempt.giveBack(), limits.consume(principal)]);
  if (consumed.status === 'rejected') throw consumed.reason;
  return principal;
}
