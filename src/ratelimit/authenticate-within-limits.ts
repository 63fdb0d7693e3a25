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
): Promise<Principal> {
  if (!limits) return authenticate(authorization);
  await limits.checkAddress();
  let principal: Principal;
  try {
    principal = await authenticate(authorization);
  } catch (err) {
    if (err instanceof AppError && err.code === 'UNAUTHORIZED') await limits.countFailedAuthentication();
    throw err;
  }
  await limits.consume(principal);
  return principal;
}
