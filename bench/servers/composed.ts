import express, { type Express } from 'express';
import pino from 'pino';
import * as leadsQueries from '../../src/db/queries/leads.queries';
import { decodeEnvelope, encodeResult } from '../../src/rpc/envelope';
import { sendJson } from '../../src/http/send-json';
import { requestLog } from '../../src/observability/request-log';
import { createMetrics } from '../../src/observability/metrics';
import { createRouteLabeller } from '../../src/observability/route-label';
import { edgeHeaders } from '../../src/http/edge-headers';
import { createLogger } from '../../src/logger';
import { createKeyAuthenticator } from '../../src/auth/key-authenticator';
import { createApp } from '../../src/app';
import { createHttpServer } from '../../src/server/http-server';
import { serverSetup } from './server-env';

// leads.getById served by the service's own pieces, added one at a time (bench/elimination.ts
// says what each VARIANT holds), so each piece's cost is the difference between two servers.
const { db, port, host } = serverSetup();
const variant = process.env.VARIANT ?? '';
const orgId = process.env.ORG_ID ?? '';

/** The whole app (createApp) outside index.ts, with its log lines written one of three ways. */
function wholeApp(): Express {
  const destination = variant === 'app:log-sync' ? pino.destination({ dest: 1, sync: true })
    : variant === 'app:log-buffered' ? pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 200 })
      : undefined;
  const secret = (c: string) => c.repeat(64);
  return createApp({
    db,
    logger: createLogger('info', { destination }),
    config: { BODY_LIMIT: '100kb', KEY_CACHE_TTL_MS: 5000, SESSION_SECRET: secret('s'), TOKEN_SECRET: secret('t'), NODE_ENV: 'production' },
  });
}

/** The action route alone: envelope in, the query, envelope out; then log, helmet and key checks as named. */
function routeWithPieces(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (variant.includes('+log')) {
    app.use(requestLog({ logger: createLogger('info'), metrics: createMetrics(db), labelsOf: createRouteLabeller(app, () => true) }));
  }
  if (variant.includes('+edge')) app.use(edgeHeaders());
  const keys = createKeyAuthenticator({ db, cacheTtlMs: 60_000 });
  const router = express.Router({ caseSensitive: true });
  router.all(['/api/v1/rpc', '/api/v1/rpc/*name'], async (req, res) => {
    const org = variant.includes('+auth') ? (await keys.authenticate(req.headers.authorization)).orgId : orgId;
    const input = decodeEnvelope(String(req.query.input)) as { id: string };
    sendJson(res, 200, JSON.stringify(encodeResult(await leadsQueries.getById(db, org, input.id))));
  });
  app.use(router);
  return app;
}

/** A list page's size (about 47 KB) answered from memory: what sending it costs, without the database. */
function staticPage(): Express {
  const app = express();
  const lead = (i: number) => JSON.stringify({ id: `lead_${String(i).padStart(22, '0')}`, name: 'A Name', filler: 'x'.repeat(400) });
  const body = `{"data":[${Array.from({ length: 100 }, (_, i) => lead(i)).join(',')}]}`;
  app.get('/api/v1/rpc/*name', (_req, res) => sendJson(res, 200, body));
  return app;
}

const app = variant.startsWith('app') ? wholeApp() : variant === 'static-page' ? staticPage() : routeWithPieces();
createHttpServer(app).listen(port, host);
