import express, { type Router } from 'express';
import { z } from 'zod';
import { AppError } from '../errors/app-error';
import { fromZodError } from '../errors/zod-issues';
import { assertMaximumTier, assertScope, type Principal } from '../auth/principal';
import { signStreamToken } from '../auth/stream-token';
import type { JwtKeys } from '../auth/secrets';
import { authenticateWithinLimits } from '../ratelimit/authenticate-within-limits';
import type { RateLimiter } from '../ratelimit/rate-limiter';
import type { SubscriptionRegistry } from '../rpc/registry';
import { recordPrincipal } from '../observability/request-principal';
import { assertJsonBody } from '../rpc/dispatch';
import { readRawBody } from './read-raw-body';

export const STREAM_TOKENS_PATH = '/api/v1/stream-tokens';

export const streamTokenRequest = z.strictObject({
  procedure: z.string({ error: 'expected the name of a subscription, e.g. events.onEvent' }).max(100, 'expected at most 100 characters'),
});

/**
 * `POST /api/v1/stream-tokens {"procedure": "events.onEvent"}`: for a browser's EventSource,
 * which cannot send Authorization, a token for `?token=` on that one subscription, valid 5
 * minutes, carrying only the scopes that subscription reads with. Authenticated, tiered and
 * counted like an action call; the caller must hold the subscription's scope.
 */
export function streamTokenRouter(
  deps: { subscriptions: SubscriptionRegistry; authenticate(authorization: string | undefined): Promise<Principal>; jwtKeys: JwtKeys; rateLimiter?: RateLimiter },
  bodyLimit: string,
): Router {
  const router = express.Router({ caseSensitive: true });
  router.post(STREAM_TOKENS_PATH, readRawBody(bodyLimit), async (req, res) => {
    const limits = deps.rateLimiter?.forCall(req.ip, (fields) => res.set(fields));
    const principal = await authenticateWithinLimits(deps.authenticate, req.headers.authorization, limits, (p) => recordPrincipal(res, p));
    assertMaximumTier(principal);
    assertJsonBody(req.headers['content-type'], res.locals.bodyError);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '');
    } catch {
      throw new AppError('BAD_REQUEST', 'Malformed JSON: send {"procedure": "events.onEvent"}');
    }
    const parsed = streamTokenRequest.safeParse(body);
    if (!parsed.success) throw fromZodError(parsed.error);
    const subscription = deps.subscriptions.get(parsed.data.procedure);
    if (!subscription) throw new AppError('NOT_FOUND', `No subscription named ${JSON.stringify(parsed.data.procedure)}`);
    if (!subscription.exposed) throw new AppError('FORBIDDEN', `${subscription.name} is not exposed to the API`);
    assertScope(principal, subscription.scope);
    const scopes = [subscription.scope, ...(subscription.readsWith ?? [])].filter((scope, i, all) => principal.scopes.has(scope) && all.indexOf(scope) === i);
    const issued = signStreamToken(deps.jwtKeys.token, { procedure: subscription.name, scopes, principal, sourceExpiresAt: principal.expiresAt ?? null });
    res.status(201).json({ token: issued.token, expiresAt: issued.expiresAt.toISOString(), procedure: subscription.name, scopes });
  });
  return router;
}
