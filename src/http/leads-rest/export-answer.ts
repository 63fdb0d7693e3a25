import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip } from 'node:zlib';
import type { OpenedExport } from '../../procedures/leads/export';

/** How many requests an export counts as against its key's budget: one expensive call. */
export const EXPORT_COST = 10;

/**
 * Exports this process runs at once: each holds a database connection of its own (outside the
 * pool) for as long as its reader takes. One more is answered 429.
 */
export const EXPORTS_AT_ONCE = 4;

/** A reader that takes nothing for this long is gone: its export is ended (the socket closed). */
const STALLED_READER_MS = 60_000;

const MEDIA_TYPES = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' } as const;

/**
 * Streams an opened export to its caller: 200 with the file's media type and name, gzip when the
 * caller's Accept-Encoding prefers it to identity, then COPY's bytes through `pipeline`, which
 * waits for the socket to drain (a slow reader pauses PostgreSQL) and stops when the caller goes
 * away. Whole: the transaction commits. Otherwise: the statement is cancelled, its connection
 * closed, and the caller, who got a chunked body without its last chunk, can tell it is cut short.
 */
export async function sendExport(req: Request, res: Response, opened: OpenedExport): Promise<void> {
  const gzip = req.headers['accept-encoding'] !== undefined && req.acceptsEncodings('gzip', 'identity') === 'gzip';
  res.statusCode = 200;
  res.setHeader('Content-Type', MEDIA_TYPES[opened.format]);
  res.setHeader('Content-Disposition', `attachment; filename="leads-${new Date().toISOString().slice(0, 10)}.${opened.format}"`);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept-Encoding');
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  if (req.method === 'HEAD') {
    // Node sends no body to a HEAD: the export is ended rather than read through for nothing.
    res.end();
    await opened.abort();
    return;
  }
  // A reader that takes nothing for this long is cut off; the listener goes with the export (a
  // kept-alive socket serves other requests after it).
  const socket = res.socket;
  const onStalled = () => res.destroy();
  socket?.setTimeout(STALLED_READER_MS);
  socket?.on('timeout', onStalled);
  try {
    // The fastest level: an export is large and read once; level 6 cost several times COPY's own time.
    if (gzip) await pipeline(opened.bytes, createGzip({ level: constants.Z_BEST_SPEED }), res);
    else await pipeline(opened.bytes, res);
  } catch {
    await opened.abort();
    return;
  } finally {
    socket?.setTimeout(0);
    socket?.off('timeout', onStalled);
  }
  await opened.finish();
}
