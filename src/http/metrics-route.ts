import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Router } from 'express';
import type { Registry } from 'prom-client';
import { AppError } from '../errors/app-error';
import { bearerCredentialOf } from '../auth/bearer';


/**
 * `GET /metrics` in Prometheus text format. With a token it needs `Authorization: Bearer <token>`;
 * without one it is open (ops then block the path at the proxy). Comparing SHA-256 digests keeps
 * the comparison constant-time whatever the length sent.
 */
export function metricsRouter(deps: { registry: Registry; token?: string }): Router {
  const router = express.Router({ caseSensitive: true });
  const expected = deps.token === undefined ? undefined : digest(deps.token);
  router.get('/metrics', async (req, res) => {
    if (expected) {
      const sent = bearerCredentialOf(req.headers.authorization);
      if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
        throw new AppError('UNAUTHORIZED', 'The metrics need Authorization: Bearer <METRICS_TOKEN>', {
          headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' },
        });
      }
    }
    const text = await deps.registry.metrics();
    res.setHeader('Content-Type', deps.registry.contentType);
    res.set('Cache-Control', 'no-store').send(text);
  });
  return router;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
