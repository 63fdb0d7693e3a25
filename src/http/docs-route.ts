import { dirname } from 'node:path';
import express, { type Request, type RequestHandler, type Router } from 'express';
import type { Registry, SubscriptionRegistry } from '../rpc/registry';
import { createSubscriptionRegistry } from '../procedures';
import { buildOpenApiDocument, OPENAPI_PATH, SERVER_URL_PLACEHOLDER } from '../openapi/document';
import { DOCS_HTML, DOCS_SCRIPT } from './docs-page';

const ASSETS_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
/** The package's files the page uses; its own index.html would load the Petstore from the web. */
const SERVED_ASSETS = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js', '/favicon-32x32.png', '/favicon-16x16.png']);

/**
 * The global helmet policy stays as it is; the docs get their own, which allows exactly what
 * Swagger UI needs: same-origin scripts and fetches, its inline style attributes, data: images.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const docsCsp: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  next();
};

/**
 * `GET /api/v1/openapi.json` and `GET /docs`, both without authentication: the reference is
 * public, and it describes the service, not a workspace. The document is built once, at start,
 * from the procedures and subscriptions served (every subscription when none are given).
 */
export function docsRouter(deps: { registry: Registry; subscriptions?: SubscriptionRegistry }): Router {
  const document = JSON.stringify(buildOpenApiDocument(deps.registry, deps.subscriptions ?? createSubscriptionRegistry(deps.registry)));
  // Built once; each answer only writes its origin between the two halves.
  const [beforeServer, afterServer, ...more] = document.split(JSON.stringify(SERVER_URL_PLACEHOLDER));
  if (afterServer === undefined || more.length > 0) throw new Error('the document must name its server once');
  const router = express.Router({ caseSensitive: true });
  router.get(OPENAPI_PATH, (req, res) => {
    // Public and credential-free, so tools on other origins (editors, generators) may fetch it.
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.vary('Host');
    res.type('application/json').send(`${beforeServer}${JSON.stringify(originOf(req))}${afterServer}`);
  });
  router.get('/docs', docsCsp, (_req, res) => {
    res.type('html').send(DOCS_HTML);
  });
  router.get('/docs/assets/docs.js', docsCsp, (_req, res) => {
    res.type('application/javascript').send(DOCS_SCRIPT);
  });
  router.use('/docs/assets', docsCsp, (req, _res, next) => (SERVED_ASSETS.has(req.path) ? next() : next('router')));
  router.use('/docs/assets', express.static(ASSETS_DIR, { index: false, fallthrough: true, maxAge: '1h' }));
  return router;
}

/** A host as HTTP allows it (a name or an IPv4 or bracketed IPv6 address, and a port). */
const HOST = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/;

/**
 * The origin the request reached: its scheme (X-Forwarded-Proto only behind a trusted proxy,
 * TRUST_PROXY) and Host. A Host that is not one gives the relative `/`.
 */
function originOf(req: Request): string {
  const host = req.get('host');
  return host && HOST.test(host) ? `${req.protocol}://${host}` : '/';
}
