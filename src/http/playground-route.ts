import express, { type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import { AppError, invalidInput } from '../errors/app-error';
import { fromZodError } from '../errors/zod-issues';
import { unauthorized } from '../auth/jwt';
import { authenticateMemberSession, type MemberSession } from '../auth/member-session';
import { signPlaygroundToken } from '../auth/playground-token';
import { assertDeveloperAccess, type MemberAccessReader } from '../auth/developer-access';
import { KNOWN_SCOPES } from '../auth/scopes';
import { scopeListField } from '../procedures/shared/scope-fields';
import type { JwtKeys } from '../auth/secrets';
import type { RouteInputs } from './route-inputs';
import { createMintLimiter, type MintLimiter } from './playground-mint-limit';

export const playgroundTokenRequest = z.strictObject({ scopes: scopeListField('ask for at least one scope').optional() });

/** Every exposed read scope: the default, so a first try in the playground cannot change live data. */
export function defaultPlaygroundScopes(): string[] {
  return [...KNOWN_SCOPES].filter((s) => s.endsWith('.read')).sort();
}

export const playgroundRouteInputs: RouteInputs = { 'POST /api/v1/playground/token': { body: playgroundTokenRequest } };

function chooseScopes(body: unknown): string[] {
  const parsed = playgroundTokenRequest.safeParse(body ?? {});
  if (!parsed.success) throw fromZodError(parsed.error);
  if (!parsed.data.scopes) return defaultPlaygroundScopes();
  const known = KNOWN_SCOPES;
  const unknown = parsed.data.scopes
    .map((scope, i) => ({ scope, i }))
    .filter(({ scope }) => !known.has(scope))
    .map(({ scope, i }) => ({ path: ['scopes', i], message: `unknown scope ${JSON.stringify(scope)}: not required by any exposed procedure` }));
  if (unknown.length > 0) throw invalidInput(unknown);
  return [...new Set(parsed.data.scopes)];
}

/**
 * `POST /api/v1/playground/token`: a member session gets a one-hour test token for its workspace.
 * Authentication runs before the body is read, so an anonymous caller learns nothing from a 400.
 */
export function playgroundRouter(deps: { jwtKeys: JwtKeys; readAccess: MemberAccessReader; mintLimiter?: MintLimiter }, bodyLimit: string): Router {
  const router = express.Router({ caseSensitive: true });
  const mintLimiter = deps.mintLimiter ?? createMintLimiter();

  const requireDeveloper: RequestHandler = async (req, res, next) => {
    const session = authenticateMemberSession(deps.jwtKeys.session, req.headers.authorization);
    const access = await deps.readAccess(session.orgId, session.memberId);
    if (!access) throw unauthorized('The member session belongs to a member who no longer exists');
    assertDeveloperAccess(access);
    res.locals.session = session;
    next();
  };

  // Counted before the body is read, refused ones too: each try costs a JSON parse and a signature.
  const limitMints: RequestHandler = async (_req, res, next) => {
    const session = res.locals.session as MemberSession;
    const verdict = await mintLimiter.take(`${session.orgId}\u0000${session.memberId}`);
    res.setHeader('RateLimit-Policy', `"playground-token";q=${mintLimiter.limit};w=${mintLimiter.windowSeconds}`);
    res.setHeader('RateLimit', `"playground-token";r=${verdict.remaining};t=${verdict.resetSeconds}`);
    if (!verdict.allowed) {
      throw new AppError('TOO_MANY_REQUESTS', `Too many playground tokens for this member: at most ${mintLimiter.limit} in ${mintLimiter.windowSeconds} s; retry in ${verdict.resetSeconds} s`, {
        headers: { 'Retry-After': String(verdict.resetSeconds) },
      });
    }
    next();
  };

  // A body of another type would otherwise be ignored and silently yield the default scopes.
  // (An empty body, `Content-Length: 0`, is no body: it asks for the defaults.)
  const requireJsonIfBody: RequestHandler = (req, _res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (hasBody && !req.is('application/json')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as Content-Type: application/json');
    next();
  };

  router.post('/api/v1/playground/token', requireDeveloper, limitMints, requireJsonIfBody, express.json({ limit: bodyLimit }), (req, res) => {
    const session = res.locals.session as MemberSession;
    const scopes = chooseScopes(req.body);
    const issued = signPlaygroundToken(deps.jwtKeys.token, { memberId: session.memberId, orgId: session.orgId, scopes });
    res.status(200).json({ token: issued.token, expiresAt: issued.expiresAt.toISOString(), scopes });
  });
  return router;
}
