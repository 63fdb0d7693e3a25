import { createServer, type RequestListener, type Server } from 'node:http';

/**
 * Largest request line plus headers Node accepts. Its default (16 KiB) is answered by Node's
 * parser with a bare 431, outside the envelope, before the app sees the request; raised above
 * the GET input limit (MAX_GET_INPUT_BYTES, at most 24 KiB percent-encoded) so that an input
 * over that limit gets our 400 instead.
 */
export const MAX_HEADER_SIZE = 64 * 1024;

/** The HTTP server the service listens with (index.ts) and that tests start the same way. */
export function createHttpServer(app: RequestListener): Server {
  return createServer({ maxHeaderSize: MAX_HEADER_SIZE }, app);
}
