import { createServer, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import express, { type Express, type Request, type Response } from 'express';
import { connectDatabase } from '../../src/db/connect';
import * as leads from '../../src/db/leads';
import type { Lead } from '../../src/db/leads';
import { decodeEnvelope, encodeResult } from '../../src/rpc/envelope';
import { parseWithContext } from '../../src/rpc/parse-context';
import { createProcedureRegistry } from '../../src/procedures';
import { sendJson } from '../../src/http/send-json';
import { edgeHeaders } from '../../src/http/edge-headers';
import { requestLog } from '../../src/observability/request-log';
import { createMetrics } from '../../src/observability/metrics';
import { createRouteLabeller } from '../../src/observability/route-label';
import { recordPrincipal } from '../../src/observability/request-principal';
import { createLogger } from '../../src/logger';
import { createKeyAuthenticator } from '../../src/auth/key-authenticator';
import { createAuthenticator } from '../../src/auth/authenticate';
import { createMemberAccessReader } from '../../src/auth/developer-access';
import { createJwtKeys } from '../../src/auth/secrets';
import { createCacheInvalidation } from '../../src/auth/key-invalidation';
import { createNotificationListener } from '../../src/live/notification-listener';
import { assertMaximumTier, assertScope, type Principal } from '../../src/auth/principal';
import { createRateLimiter } from '../../src/ratelimit/rate-limiter';
import { createMemoryWindowStore } from '../../src/ratelimit/memory-window-store';
import { keyLimitsOf } from '../../src/ratelimit/limits';
import { authenticateWithinLimits } from '../../src/ratelimit/authenticate-within-limits';
import { createApp } from '../../src/app';
import { createHttpServer } from '../../src/server/http-server';

// leads.getById served by the floor (servers/floor.ts) plus the service's own pieces, one layer
// more in each LAYER (bench/layers.ts runs them in turn, so each layer's cost is the difference
// between two servers). LAYERS is the order; each includes every layer before it. `app` is
// createApp itself, as index.ts builds it (the dispatcher's remaining checks, every router).
const LAYERS = ['query', 'express', 'envelope', 'zod', 'auth', 'ratelimit', 'log', 'edge', 'app'] as const;
type Layer = (typeof LAYERS)[number];

const layer = process.env.LAYER as Layer;
const has = (l: Layer) => LAYERS.indexOf(l) <= LAYERS.indexOf(layer);
const orgId = process.env.ORG_ID ?? '';
const url = process.env.DATABASE_URL ?? '';
const port = Number(process.env.PORT ?? 0);
const host = '127.0.0.1';
process.once('SIGTERM', () => process.exit(0));

/** What the floor answers: the lead in the envelope, its Dates named by hand. */
function floorEnvelope(lead: Lead): string {
  const values: Record<string, ['Date']> = lead.nextCallAt ? { nextCallAt: ['Date'] } : {};
  values.createdAt = ['Date'];
  values.updatedAt = ['Date'];
  return JSON.stringify({ result: { data: { json: lead, meta: { values, v: 1 } } } });
}

async function main(): Promise<void> {
  if (!LAYERS.includes(layer)) throw new Error(`LAYER: one of ${LAYERS.join(', ')}`);
  // The service's two pools, as index.ts opens them (the hot reads' pool of their own).
  const { db, hotReads } = await connectDatabase({
    url, embeddedDir: '', poolMax: Number(process.env.DB_POOL_MAX ?? 10), migrate: false,
    acquireTimeoutMs: 3000, statementTimeoutMs: 15_000, namedStatements: true,
  });
  const logger = createLogger('info');
  const listener = createNotificationListener({ url, db });
  const invalidation = createCacheInvalidation(listener, logger);
  if (has('auth')) listener.start();
  const secret = () => randomBytes(32).toString('hex');
  const secrets = { SESSION_SECRET: secret(), TOKEN_SECRET: secret() };
  const rateLimiter = has('ratelimit')
    ? createRateLimiter({ store: createMemoryWindowStore(), logger, keyLimits: keyLimitsOf(1_000_000), failedAuthLimit: 30 })
    : undefined;

  if (layer === 'query') {
    // Bare node:http, as the floor, with the service's query in place of the floor's.
    createServer((req, res: ServerResponse) => {
      const [, , org, id] = (req.url ?? '').split('/');
      leads.getById(db, hotReads, org!, id!).then((lead) => {
        const body = lead ? floorEnvelope(lead) : '{"error":"not found"}';
        res.writeHead(lead ? 200 : 404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      });
    }).listen(port, host);
    return;
  }
  const registry = createProcedureRegistry();
  if (layer === 'app') {
    const app = createApp({ db, hotReads, logger, config: { BODY_LIMIT: '100kb', KEY_CACHE_TTL_MS: 1000, NODE_ENV: 'production', ...secrets }, cacheInvalidation: invalidation, rateLimiter });
    createHttpServer(app).listen(port, host);
    return;
  }

  const app: Express = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (has('log')) app.use(requestLog({ logger, metrics: createMetrics(hotReads.pools()), labelsOf: createRouteLabeller(app, (name) => registry.has(name)) }));
  if (has('edge')) app.use(edgeHeaders());
  const readAccess = createMemberAccessReader({ db, cacheTtlMs: 1000, invalidation });
  const authenticate = createAuthenticator({ keys: createKeyAuthenticator({ db, cacheTtlMs: 1000, invalidation }), tokenKey: createJwtKeys(secrets).token, readAccess });
  const procedure = registry.get('leads.getById')!;
  const router = express.Router({ caseSensitive: true });
  if (!has('envelope')) {
    router.get('/leads/:orgId/:id', async (req, res) => {
      const lead = await leads.getById(db, hotReads, req.params.orgId as string, req.params.id as string);
      sendJson(res, lead ? 200 : 404, lead ? floorEnvelope(lead) : '{"error":"not found"}');
    });
  } else {
    router.all(['/api/v1/rpc', '/api/v1/rpc/*name'], async (req: Request, res: Response) => {
      let principal: Principal | undefined;
      if (has('auth')) {
        const limits = rateLimiter?.forCall(req.ip, (fields) => res.set(fields));
        principal = await authenticateWithinLimits(authenticate, req.headers.authorization, limits, (p) => recordPrincipal(res, p));
        assertMaximumTier(principal);
        assertScope(principal, procedure.scope);
      }
      const raw = decodeEnvelope(String(req.query.input));
      const org = principal?.orgId ?? orgId;
      let output: unknown;
      if (has('zod')) {
        const parsed = parseWithContext(procedure.input, raw, { phoneRegion: principal?.org.phoneRegion ?? 'GB', webhookUrlPolicy: 'production' });
        if (parsed instanceof Promise || !parsed.success) throw new Error('unexpected input');
        const ctx = { db, hotReads, orgId: org, org: principal?.org, actor: { kind: 'apiKey', id: principal?.id }, scopes: principal?.scopes, webhookUrlPolicy: 'production' };
        output = await procedure.handler({ ctx: ctx as never, input: parsed.data });
      } else {
        output = await leads.getById(db, hotReads, org, (raw as { id: string }).id);
      }
      sendJson(res, 200, JSON.stringify(encodeResult(output)));
    });
  }
  app.use(router);
  createHttpServer(app).listen(port, host);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
