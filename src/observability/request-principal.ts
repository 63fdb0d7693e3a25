import type { Response } from 'express';
import type { Principal } from '../auth/principal';

type Authenticate = (authorization: string | undefined) => Promise<Principal>;

/** Who the request authenticated as, for its log line (org and key ids only, never the secret). */
export function principalOf(res: Response): Principal | undefined {
  return res.locals.principal as Principal | undefined;
}

export function recordPrincipal(res: Response, principal: Principal): void {
  res.locals.principal = principal;
}

/**
 * `authenticate` for one request that also remembers its caller, so a call refused after
 * authentication (scope, input, not found) is still logged with its org and key. The
 * dispatcher stays free of Express.
 */
export function recordingAuthenticate(authenticate: Authenticate, res: Response): Authenticate {
  return async (authorization) => {
    const principal = await authenticate(authorization);
    recordPrincipal(res, principal);
    return principal;
  };
}
