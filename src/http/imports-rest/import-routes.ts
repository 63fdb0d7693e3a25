import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../errors/app-error';
import { fromZodError } from '../../errors/zod-issues';
import { assertMaximumTier, assertScope, type Principal } from '../../auth/principal';
import * as importsQueries from '../../db/imports';
import { runProcedure, type DispatchDeps } from '../../rpc/dispatch';
import type { RateLimiter } from '../../ratelimit/rate-limiter';
import { authenticateRestCall } from '../leads-rest/authenticate-rest-call';
import { sendJson } from '../send-json';
import { IMPORT_MEDIA_TYPES, MAX_IMPORT_BYTES, type ImportFormat } from '../../imports/import-format';
import { receiveUpload } from '../../imports/receive-upload';
import { tooLarge } from '../../imports/utf8-lines';
import { sendErrorsFile } from './errors-file';

export const IMPORTS_PATH = '/api/v1/imports';

export interface ImportRoutesDeps extends DispatchDeps {
  rateLimiter?: RateLimiter;
  /** How many imports a workspace may have waiting (IMPORT_QUEUE_LIMIT); one more is a 429. */
  queueLimit: number;
  /** The largest file taken; MAX_IMPORT_BYTES unless a test sets less. */
  maxBytes?: number;
  /** Told when an import is queued: an in-process runner looks for work at once. */
  onQueued?(): void;
}

const uploadQuery = z.strictObject({
  resource: z.enum(['leads'], { error: 'expected "leads" (the only resource imported so far)' }),
  mode: z.enum(['create', 'upsert'], { error: 'expected "create" or "upsert"' }).default('create'),
  dryRun: z.enum(['true', 'false'], { error: 'expected true or false' }).default('false').transform((value) => value === 'true'),
}, { error: (issue) => (issue.code === 'unrecognized_keys' ? 'unknown field; expected resource, mode, dryRun' : undefined) });

/** Seconds a workspace past its queue limit is told to wait (Retry-After). */
const QUEUE_RETRY_AFTER_S = 60;

/**
 * `POST /api/v1/imports` (the file as the body: an import job, 202), `GET /api/v1/imports/{id}`
 * (imports.getById) and `GET /api/v1/imports/{id}/errors` (its failed rows as CSV). The action
 * endpoints' rules: the key's budget, the maximum tier, the scopes; errors in the REST body.
 */
export function importRoutes(deps: ImportRoutesDeps): Router {
  const router = express.Router({ caseSensitive: true });
  const authenticate = async (req: Request, res: Response): Promise<Principal> => {
    const principal = await authenticateRestCall(deps, req, res);
    assertMaximumTier(principal);
    return principal;
  };

  router.post(IMPORTS_PATH, async (req, res) => {
    // Refused before the body is read: whatever was not read is dropped with the connection.
    res.set('Connection', 'close');
    const principal = await authenticate(req, res);
    const query = uploadQuery.safeParse(req.query);
    if (!query.success) throw fromZodError(query.error);
    const { mode, dryRun } = query.data;
    for (const scope of ['imports.create', 'leads.create', ...(mode === 'upsert' ? ['leads.update'] : [])]) assertScope(principal, scope);
    const format = formatOf(req);
    const maxBytes = deps.maxBytes ?? MAX_IMPORT_BYTES;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
    if (await importsQueries.countQueued(deps.db, principal.orgId) >= deps.queueLimit) {
      throw new AppError('TOO_MANY_REQUESTS', `This workspace has ${deps.queueLimit} imports waiting already: send this one when one of them has started`, {
        headers: { 'Retry-After': String(QUEUE_RETRY_AFTER_S) },
      });
    }
    const row = await receiveUpload(deps.db, principal.orgId, {
      body: req, format, mode, dryRun, actor: { kind: principal.kind, id: principal.id }, maxBytes,
    }).catch(async (err: unknown) => {
      await discardRest(req, maxBytes);
      throw err;
    });
    deps.onQueued?.();
    res.removeHeader('Connection');
    res.set('Location', `${IMPORTS_PATH}/${encodeURIComponent(row.id)}`);
    sendJson(res, 202, JSON.stringify(importsQueries.toImport(row)));
  });

  router.get(`${IMPORTS_PATH}/:id`, async (req, res) => {
    const principal = await authenticate(req, res);
    const procedure = deps.registry.get('imports.getById')!;
    const { output } = await runProcedure(deps, { procedure, rawInput: { id: req.params.id }, principal });
    sendJson(res, 200, JSON.stringify(output));
  });

  router.get(`${IMPORTS_PATH}/:id/errors`, async (req, res) => {
    const principal = await authenticate(req, res);
    assertScope(principal, 'imports.read');
    // The id is checked as GET /imports/{id} checks it (imports.getById's input): one too long is a 400, any other unknown one a 404.
    const parsed = deps.registry.get('imports.getById')!.input.safeParse({ id: req.params.id });
    if (!parsed.success) throw fromZodError(parsed.error);
    await sendErrorsFile(deps.db, principal.orgId, (parsed.data as { id: string }).id, res);
  });

  return router;
}

/**
 * After a file refused half-way: reads what is left of the body (up to `maxBytes` more) and drops
 * it, so the client, still sending, gets the answer rather than a broken pipe. Beyond that the
 * answer goes anyway and the connection closes (Connection: close).
 */
function discardRest(req: Request, maxBytes: number): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  req.unpipe();
  return new Promise((resolve) => {
    let read = 0;
    const done = () => {
      req.off('data', count);
      req.pause();
      resolve();
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > maxBytes) done();
    };
    req.on('data', count);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

/** The body's format from its Content-Type (UTF-8 only); anything else, or a compressed body, is a 415. */
function formatOf(req: Request): ImportFormat {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file uncompressed (no Content-Encoding)');
  }
  const [type = '', ...parameters] = (req.headers['content-type'] ?? '').split(';').map((part) => part.trim().toLowerCase());
  const format = (Object.keys(IMPORT_MEDIA_TYPES) as ImportFormat[]).find((f) => IMPORT_MEDIA_TYPES[f] === type);
  const charset = parameters.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  if (!format || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the file as Content-Type: ${IMPORT_MEDIA_TYPES.csv} or ${IMPORT_MEDIA_TYPES.ndjson} (UTF-8)`);
  }
  return format;
}
