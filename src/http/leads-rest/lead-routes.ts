import express, { type Request, type Response, type Router } from 'express';
import { AppError, invalidInput } from '../../errors/app-error';
import { assertMaximumTier, type Principal } from '../../auth/principal';
import * as leads from '../../db/leads';
import type { PageForms } from '../../db/leads';
import { leadsRestList } from '../../procedures/leads/rest-list';
import { leadsExport, type OpenedExport } from '../../procedures/leads/export';
import { sendJson } from '../send-json';
import { runProcedure, type DispatchDeps, type ProcedureCall } from '../../rpc/dispatch';
import type { AnyProcedure } from '../../rpc/registry';
import { authenticateRestCall } from './authenticate-rest-call';
import type { RateLimiter } from '../../ratelimit/rate-limiter';
import { readRawBody } from '../read-raw-body';
import { ifMatchHolds, isNotModified, leadEtag } from './lead-etag';
import { bodyBytesOf, readRestBody } from './rest-body';
import { LEADS_PATH, restFormat, sendRestAnswer, UPSERT_FORMAT } from './rest-answers';
import { EXPORT_COST, EXPORTS_AT_ONCE, sendExport } from './export-answer';

type LeadRoutesDeps = DispatchDeps & { rateLimiter?: RateLimiter };

/** Fields of `leads.update` a PATCH body may not carry: the path names the lead, If-Match the version. */
const NOT_IN_PATCH: Record<string, string> = {
  id: 'the lead is the one in the path: leave id out of the body',
  expectedUpdatedAt: "send the lead's ETag as If-Match instead",
};

/** Fields of `leads.upsert` a PUT body may not carry: the path names the external id, If-Match the version. */
const NOT_IN_PUT: Record<string, string> = {
  externalId: 'the external id is the one in the path: leave externalId out of the body',
  expectedUpdatedAt: "send the lead's ETag as If-Match instead",
};

/**
 * `GET|POST /api/v1/leads`, `GET /api/v1/leads/export`, `GET|PATCH|DELETE /api/v1/leads/{id}` and
 * `PUT /api/v1/leads/external/{externalId}`: plain-REST faces of the list
 * (`leadsRestList`, the page as stored JSON), its export (`leadsExport`), `leads.create`, `leads.getById`, `leads.update`,
 * `leads.delete` and `leads.upsert`, run by the dispatcher's runProcedure so the scope, the node guard, the field
 * rules, messages, idempotency and output checks are the action endpoints'. The same
 * maximum-tier rule too: an action is the same whichever door it comes through (only the REST
 * list is open to every tier, as the spec has it).
 */
export function leadRoutes(deps: LeadRoutesDeps, bodyLimit: string): Router {
  const router = express.Router({ caseSensitive: true });

  const authenticate = async (req: Request, res: Response): Promise<Principal> => {
    const principal = await authenticateRestCall(deps, req, res);
    assertMaximumTier(principal);
    return principal;
  };
  const procedureNamed = (name: string): AnyProcedure => {
    const procedure = deps.registry.get(name);
    if (!procedure) throw new AppError('NOT_FOUND', `${name} is not served here`);
    return procedure;
  };
  /**
   * Runs a write and answers it. Its Idempotency-Key is stored under the route's own label (an RPC
   * call under the same key is another request, never replayed here) with the REST answer.
   */
  const write = async (req: Request, res: Response, principal: Principal, name: string, rawInput: unknown, label: string, status: 200 | 201 | 204) => {
    const format = restFormat(status);
    const { output, answer } = await runProcedure(deps, {
      procedure: procedureNamed(name),
      rawInput,
      principal,
      idempotencyKey: req.headers['idempotency-key'] === undefined ? undefined : req.headersDistinct['idempotency-key'],
      // The If-Match is part of what makes two requests the same: another version is another request.
      body: withIfMatch(bodyBytesOf(req), req.headers['if-match']),
      stored: { label, format },
      precondition: ifMatchCheck(req, principal),
      requestId: res.locals.requestId,
    });
    sendRestAnswer(res, answer ?? format.result(output));
  };

  // The list: open to every tier (the spec sets the maximum-tier rule for action endpoints only).
  router.get(LEADS_PATH, async (req, res) => {
    const principal = await authenticateRestCall(deps, req, res);
    const { output } = await runProcedure(deps, { procedure: leadsRestList, rawInput: req.query, principal });
    sendJson(res, 200, output as PageForms['json']);
  });

  // Before `/:id`: `export` is no lead's id (ids are `lead_...`), but the router matches in order.
  let exportsRunning = 0;
  router.get(`${LEADS_PATH}/export`, async (req, res) => {
    const principal = await authenticateRestCall(deps, req, res, EXPORT_COST);
    if (exportsRunning >= EXPORTS_AT_ONCE) {
      throw new AppError('TOO_MANY_REQUESTS', `${EXPORTS_AT_ONCE} exports are running on this instance: retry in a few seconds`, { headers: { 'Retry-After': '5' } });
    }
    exportsRunning++;
    try {
      const { output } = await runProcedure(deps, { procedure: leadsExport, rawInput: req.query, principal });
      await sendExport(req, res, output as OpenedExport);
    } finally {
      exportsRunning--;
    }
  });

  router.post(LEADS_PATH, readRawBody(bodyLimit), async (req, res) => {
    const principal = await authenticate(req, res);
    const input = readRestBody(req, res);
    await write(req, res, principal, 'leads.create', input, `POST ${LEADS_PATH}`, 201);
  });

  router.get(`${LEADS_PATH}/:id`, async (req, res) => {
    const principal = await authenticate(req, res);
    const { output } = await runProcedure(deps, { procedure: procedureNamed('leads.getById'), rawInput: { id: pathId(req) }, principal });
    const etag = leadEtag(output as { id: string; updatedAt: Date });
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch !== undefined && isNotModified(ifNoneMatch, etag)) {
      res.set('ETag', etag).status(304).end();
      return;
    }
    sendRestAnswer(res, { status: 200, body: output });
  });

  router.patch(`${LEADS_PATH}/:id`, readRawBody(bodyLimit), async (req, res) => {
    const principal = await authenticate(req, res);
    const patch = readRestBody(req, res);
    const id = pathId(req);
    await write(req, res, principal, 'leads.update', patchInput(id, patch), `PATCH ${LEADS_PATH}/${id}`, 200);
  });

  // By external id: the lead holding it is changed (200), or one is created (201, Location). The
  // path's segment is percent-decoded by the router (a `/` in an id is sent as %2F); an empty one
  // reaches the second path, so its 400 is the field's own message.
  const upsert = async (req: Request, res: Response, externalId: string) => {
    const principal = await authenticate(req, res);
    const body = readRestBody(req, res);
    const { output, answer } = await runProcedure(deps, {
      procedure: procedureNamed('leads.upsert'),
      rawInput: bodyWithPathField(body, NOT_IN_PUT, { externalId }),
      principal,
      idempotencyKey: req.headers['idempotency-key'] === undefined ? undefined : req.headersDistinct['idempotency-key'],
      body: withIfMatch(bodyBytesOf(req), req.headers['if-match']),
      // The id is part of the label: the same key and body for another id is another request.
      stored: { label: `PUT ${LEADS_PATH}/external/${encodeURIComponent(externalId)}`, format: UPSERT_FORMAT },
      precondition: ifMatchByExternalId(req, principal, externalId),
      requestId: res.locals.requestId,
    });
    sendRestAnswer(res, answer ?? UPSERT_FORMAT.result(output));
  };
  router.put(`${LEADS_PATH}/external/:externalId`, readRawBody(bodyLimit), (req, res) => upsert(req, res, req.params.externalId as string));
  router.put(`${LEADS_PATH}/external`, readRawBody(bodyLimit), (req, res) => upsert(req, res, ''));

  router.delete(`${LEADS_PATH}/:id`, async (req, res) => {
    const principal = await authenticate(req, res);
    const id = pathId(req);
    await write(req, res, principal, 'leads.delete', { id }, `DELETE ${LEADS_PATH}/${id}`, 204);
  });

  return router;
}

/** `leads.update`'s input: the body's fields with the path's id. A body that is no object is left for the schema to refuse. */
function patchInput(id: string, patch: unknown): unknown {
  return bodyWithPathField(patch, NOT_IN_PATCH, { id });
}

/** The body's fields with the path's (first, so messages follow the input's order); `refused` names the fields that belong elsewhere. */
function bodyWithPathField(body: unknown, refused: Record<string, string>, path: Record<string, string>): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const misplaced = Object.keys(refused).filter((name) => Object.hasOwn(body, name));
  if (misplaced.length > 0) throw invalidInput(misplaced.map((name) => ({ path: [name], message: refused[name]! })));
  return { ...path, ...body };
}

/**
 * If-Match on a PUT by external id: the lead holding the id is locked and its ETag compared in the
 * write's transaction. No lead holding it is a 412 too: If-Match names a version of a lead that
 * is not there (RFC 9110 §13.1.1: no current representation, the condition is false, even for
 * `*`), and nothing is created.
 */
function ifMatchByExternalId(req: Request, principal: Principal, externalId: string): ProcedureCall['precondition'] {
  const ifMatch = req.headers['if-match'];
  if (ifMatch === undefined) return undefined;
  return async (trx) => {
    const current = await leads.lockLeadByExternalId(trx, principal.orgId, externalId);
    if (!current) throw new AppError('PRECONDITION_FAILED', 'No lead holds this external id: If-Match names a version of one (leave If-Match out to create it)');
    if (!ifMatchHolds(ifMatch, leadEtag(current))) {
      throw new AppError('PRECONDITION_FAILED', 'The lead has changed since the If-Match ETag was read (or the ETag is not one of its): read it again and retry');
    }
  };
}

/**
 * With If-Match: the lead is locked and its current ETag compared, in the write's transaction, so
 * nothing changes between the check and the write. A lead changed since (or a tag that is not
 * one of ours) is 412 and nothing is written; a lead not in the workspace is left to the
 * handler's 404.
 */
function ifMatchCheck(req: Request, principal: Principal): ProcedureCall['precondition'] {
  const ifMatch = req.headers['if-match'];
  if (ifMatch === undefined || req.params.id === undefined) return undefined;
  const id = pathId(req);
  return async (trx) => {
    const current = await leads.lockLead(trx, principal.orgId, id);
    if (current && !ifMatchHolds(ifMatch, leadEtag({ id, updatedAt: current.updatedAt }))) {
      throw new AppError('PRECONDITION_FAILED', 'The lead has changed since the If-Match ETag was read (or the ETag is not one of its): read it again and retry');
    }
  };
}

/** The `:id` of a route: one path segment, so always a string. */
function pathId(req: Request): string {
  return req.params.id as string;
}

function withIfMatch(body: Buffer, ifMatch: string | undefined): Buffer {
  return ifMatch === undefined ? body : Buffer.concat([body, Buffer.from(`\0If-Match: ${ifMatch}`)]);
}
