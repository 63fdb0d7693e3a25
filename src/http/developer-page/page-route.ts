import express, { type RequestHandler, type Router } from 'express';
import { developerAssets } from './page-assets';

/**
 * Stricter than the global helmet policy: same-origin script, style and fetch only, no inline
 * script or style, no framing. The page builds its DOM with textContent, never innerHTML.
 */
export const DEVELOPER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const pageHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', DEVELOPER_CSP);
  res.setHeader('Cache-Control', 'no-cache');
  next();
};

/**
 * `GET /developer` and its two assets: browser/developer.html, browser/developer.css, and the
 * script esbuild bundles from browser/main.ts (page-assets.ts: read from the build's output, or
 * built from the sources on the first request). Files, never inline code, so the policy above holds.
 */
export function developerPageRouter(): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.get('/developer', pageHeaders, (_req, res) => {
    res.type('html').send(developerAssets().html);
  });
  router.get('/developer/assets/developer.js', pageHeaders, (_req, res) => {
    res.type('application/javascript').send(developerAssets().script);
  });
  router.get('/developer/assets/developer.css', pageHeaders, (_req, res) => {
    res.type('text/css').send(developerAssets().styles);
  });
  return router;
}
