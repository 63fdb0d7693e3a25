import express, { type Request, type Router } from 'express';
import { AppError } from '../errors/app-error';
import { toAppError } from '../errors/to-app-error';
import { assertMaximumTier, assertScope, type Principal } from '../auth/principal';
import type { StreamTokenAuthenticator } from '../auth/stream-access';
import { API_KEY_PATTERN } from '../domain/api-key-secret';
import type { Db } from '../db/knex';
import type { HotReads } from '../db/hot-reads';
import type { LiveFeeds } from '../live/live-feeds';
import type { SubscriptionContext } from '../rpc/define-subscription';
import { readQueryInput } from '../rpc/dispatch';
import { inputProblems } from '../rpc/field-checks';
import { parseWithContext } from '../rpc/parse-context';
import type { AnySubscription, SubscriptionRegistry } from '../rpc/registry';
import { authenticateWithinLimits } from '../ratelimit/authenticate-within-limits';
import type { RateLimiter } from '../ratelimit/rate-limiter';
import { recordPrincipal } from '../observability/request-principal';
import type { WebhookUrlPolicy } from '../webhooks/url-safety';
import { RPC_PREFIX, procedurePathOf } from './rpc-paths';
import { EventStream } from './event-stream';
import { rotationTime, type OpenStreams, type StreamSettings } from '../live/open-streams';

export interface SubscriptionRouteDeps {
  subscriptions: SubscriptionRegistry;
  db: Db;
  hotReads: HotReads;
  authenticate(authorization: string | undefined): Promise<Principal>;
  streamTokens: StreamTokenAuthenticator;
  rateLimiter?: RateLimiter;
  webhookUrlPolicy: WebhookUrlPolicy;
  live: LiveFeeds;
  streams: OpenStreams;
  settings: StreamSettings;
}

/** Query parameters where a credential might be put; an API key in any of them is refused, never used. */
const CREDENTIAL_PARAMS = ['token', 'access_token', 'api_key', 'apiKey', 'key', 'authorization'];

/**
 * Subscriptions, served as tRPC v11 serves them to httpSubscriptionLink: GET, the input in
 * `?input=`, the resume point from `Last-Event-ID` (or `?lastEventId=`) merged into it, and the
 * answer a Server-Sent Events stream. Every check runs before the stream starts, in the action
 * endpoints' order (limits and authentication, tier, method, exposed, scope, input, then the
 * subscription's own, such as its resume point), so a refusal is an ordinary error envelope with
 * its status. Paths that are not subscriptions go on to the action endpoints.
 */
export function subscriptionRouter(deps: SubscriptionRouteDeps): Router {
  const router = express.Router({ caseSensitive: true });
  router.all(`${RPC_PREFIX}/*name`, async (req, res, next) => {
    const name = procedurePathOf(req.path) ?? '';
    const subscription = deps.subscriptions.get(name);
    if (!subscription) return next();
    const query = req.query;
    const limits = deps.rateLimiter?.forCall(req.ip, (fields) => res.set(fields));
    const credential = credentialOf(deps, req, query);
    const principal = await authenticateWithinLimits(credential.authenticate, req.headers.authorization, limits, (p) => recordPrincipal(res, p));
    assertMaximumTier(principal);
    if (credential.procedure !== undefined && credential.procedure !== name) {
      throw new AppError('FORBIDDEN', `This stream token opens ${credential.procedure} only`);
    }
    if (query.batch !== undefined) throw new AppError('BAD_REQUEST', 'Batching is not supported: open one subscription per request');
    if (req.method !== 'GET') {
      throw new AppError('METHOD_NOT_SUPPORTED', `${name} is a subscription: use GET (text/event-stream)`, { headers: { Allow: 'GET' } });
    }
    if (!subscription.exposed) throw new AppError('FORBIDDEN', `${name} is not exposed to the API`);
    assertScope(principal, subscription.scope);
    const input = parseInput(subscription, req, query, principal, deps.webhookUrlPolicy);

    const stream = new EventStream(res, name);
    const open = {
      stream, credential: credential.key, recheck: credential.recheck, scope: subscription.scope, principal,
      stop: () => {}, rotateAt: rotationTime(deps.settings.maxDurationMs),
    };
    const ctx: SubscriptionContext = {
      db: deps.db, hotReads: deps.hotReads, orgId: principal.orgId, org: principal.org, actor: { kind: principal.kind, id: principal.id },
      scopes: () => open.principal.scopes, webhookUrlPolicy: deps.webhookUrlPolicy, live: deps.live,
    };
    let remove = () => {};
    open.stop = await subscription.open({
      ctx, input,
      sink: {
        next: (value, id) => stream.value(value, id),
        error: (err) => {
          remove();
          stream.error(toAppError(err));
        },
      },
    });
    remove = deps.streams.add(open);
    req.on('close', remove);
    if (res.destroyed) return remove();
    // The client waits this long without a frame (pings come every pingMs) before it reconnects by itself.
    stream.start({ reconnectAfterInactivityMs: deps.settings.pingMs * 3 });
  });
  return router;
}

/**
 * The credential: the Authorization header (an API key or playground token), or a stream token
 * in `?token=`. Both at once is refused, as is an API key anywhere in the URL (it would sit in
 * proxies' and servers' logs: mint a stream token instead).
 */
function credentialOf(deps: SubscriptionRouteDeps, req: Request, query: Request['query']) {
  for (const param of CREDENTIAL_PARAMS) {
    const value = query[param];
    if (typeof value === 'string' && API_KEY_PATTERN.test(value.replace(/^Bearer\s+/i, ''))) {
      throw new AppError('BAD_REQUEST', `An API key in a URL is refused: send it as Authorization: Bearer <key>, or mint a stream token (POST /api/v1/stream-tokens) for ?token=`);
    }
  }
  const token = query.token;
  if (token === undefined) {
    const authorization = req.headers.authorization;
    return {
      key: `header ${authorization}`,
      procedure: undefined,
      authenticate: deps.authenticate,
      recheck: () => deps.authenticate(authorization),
    };
  }
  if (typeof token !== 'string') throw new AppError('BAD_REQUEST', 'Give the "token" query parameter once');
  if (req.headers.authorization !== undefined) throw new AppError('BAD_REQUEST', 'Send either Authorization or ?token=, not both');
  const verified = deps.streamTokens.verify(token);
  return {
    key: `token ${verified.id}`,
    procedure: verified.procedure,
    authenticate: () => deps.streamTokens.principalOf(verified),
    recheck: () => deps.streamTokens.principalOf(verified),
  };
}

/** The input, with the resume point merged in as tRPC does: the Last-Event-ID header, else `?lastEventId=`. */
function parseInput(subscription: AnySubscription, req: Request, query: Request['query'], principal: Principal, webhookUrlPolicy: WebhookUrlPolicy): unknown {
  let rawInput = readQueryInput(query.input);
  const header = req.headers['last-event-id'];
  const lastEventId = typeof header === 'string' && header !== '' ? header : query.lastEventId;
  if (subscription.tracked && lastEventId !== undefined && lastEventId !== '') {
    if (rawInput !== undefined && (rawInput === null || typeof rawInput !== 'object' || Array.isArray(rawInput))) {
      throw new AppError('BAD_REQUEST', 'The input must be an object to take a lastEventId');
    }
    rawInput = { ...(rawInput as object | undefined), lastEventId };
  }
  const parsed = parseWithContext(subscription.input, rawInput, { phoneRegion: principal.org.phoneRegion, webhookUrlPolicy });
  if (parsed instanceof Promise) throw new Error('a subscription input must parse synchronously');
  if (!parsed.success) throw inputProblems(parsed.error, []);
  return parsed.data;
}
