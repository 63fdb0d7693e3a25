import express, { type RequestHandler, type Router } from 'express';
import { DEVELOPER_HTML } from './page-html';
import { DEVELOPER_SCRIPT } from './page-script';
import { DEVELOPER_STYLES } from './page-styles';

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

/** `GET /developer` and its two assets, kept as strings in TypeScript modules so `tsc` ships them. */
export function developerPageRouter(): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.get('/developer', pageHeaders, (_req, res) => {
    res.type('html').send(DEVELOPER_HTML);
  });
  router.get('/developer/assets/developer.js', pageHeaders, (_req, res) => {
    res.type('application/javascript').send(DEVELOPER_SCRIPT);
  });
  router.get('/developer/assets/developer.css', pageHeaders, (_req, res) => {
    res.type('text/css').send(DEVELOPER_STYLES);
  });
  return router;
}
