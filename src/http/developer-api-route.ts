import express, { type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import { AppError } from '../errors/app-error';
import { fromZodError } from '../errors/zod-issues';
import { unauthorized } from '../auth/jwt';
import { authenticateMemberSession, type MemberSession } from '../auth/member-session';
import { DEVELOPER_API_FEATURE, DEVELOPER_PERMISSION, type MemberAccessReader } from '../auth/developer-access';
import { DEFAULT_PREVIOUS_SECRET_SECONDS, issueApiKey, MAX_PREVIOUS_SECRET_SECONDS, rollApiKey } from '../auth/api-keys';
import { KNOWN_SCOPES, OPT_IN_SCOPES } from '../auth/scopes';
import * as apiKeysQueries from '../db/api-keys';
import * as membersQueries from '../db/members';
import * as orgsQueries from '../db/orgs';
import type { ApiKeyListing } from '../db/api-keys';
import type { MemberAccess } from '../db/members';
import type { Db } from '../db/knex';
import type { Registry } from '../rpc/registry';
import type { JwtKeys } from '../auth/secrets';
import { idField, requiredText, wholeNumber } from '../procedures/shared/fields';
import { scopeListField } from '../procedures/shared/scope-fields';
import type { RouteInputs } from './route-inputs';
import { buildProcedureCatalogue, groupScopesByResource } from './developer-page/procedure-catalogue';
import { developerPageRouter } from './developer-page/page-route';
import { apiKeysGetRequestsInput, keyRequestsPage } from '../procedures/api-keys/get-requests';

export const createKeyBody = z.strictObject({
  name: requiredText(100),
  scopes: scopeListField('choose at least one scope'),
  // The ISO pattern takes any number of fraction digits: bounded here, as dateTimeField is.
  expiresAt: z.iso.datetime({ offset: true }).max(64).nullable().optional(),
});

/** Key ids are opaque; a longer one names nothing, and is refused before it is looked up or echoed. */
export const revokeKeyParams = z.strictObject({ id: idField });

/** POST /developer/api/keys/:id/roll: the overlap as apiKeys.roll takes it. */
export const rollKeyBody = z.strictObject({
  expirePreviousInSeconds: wholeNumber(0, MAX_PREVIOUS_SECRET_SECONDS, 'a whole number of seconds').optional(),
});

/** The request log's filters as a query string carries them (text), read into apiKeys.getRequests' input. */
export const keyRequestsQuery = z.strictObject({
  status: z.string().max(9).optional(),
  procedure: z.string().max(200).optional(),
  after: z.string().max(64).optional(),
  limit: z.string().max(4).regex(/^\d+$/).optional(),
});

export const developerRouteInputs: RouteInputs = {
  'GET /developer': {},
  'GET /developer/assets/developer.js': {},
  'GET /developer/assets/developer.css': {},
  'GET /developer/api/me': {},
  'GET /developer/api/keys': {},
  'POST /developer/api/keys': { body: createKeyBody },
  'POST /developer/api/keys/:id/revoke': { params: revokeKeyParams },
  'POST /developer/api/keys/:id/roll': { params: revokeKeyParams, body: rollKeyBody },
  'GET /developer/api/procedures': {},
  'GET /developer/api/keys/:id/requests': { params: revokeKeyParams, query: keyRequestsQuery },
};

/** The listing's fields, picked one by one so a secret or hash can never slip into an answer. */
function keyView(key: ApiKeyListing) {
  const { id, name, prefix, scopes, createdAt, expiresAt, lastUsedAt, revokedAt, previousSecret } = key;
  return { id, name, prefix, scopes, createdAt, expiresAt, lastUsedAt, revokedAt, previousSecret };
}

/** Changing keys needs DEVELOPER on the member and DEVELOPER_API on the workspace; reading does not. */
function assertMayManageKeys(access: MemberAccess): void {
  if (!access.permissions.includes(DEVELOPER_PERMISSION)) {
    throw new AppError('FORBIDDEN', `This member lacks the ${DEVELOPER_PERMISSION} permission, which creating or revoking keys needs`);
  }
  if (!access.org.features.includes(DEVELOPER_API_FEATURE)) {
    throw new AppError('FORBIDDEN', `This workspace lacks the ${DEVELOPER_API_FEATURE} feature, which creating or revoking keys needs`);
  }
}

interface Deps {
  db: Db;
  registry: Registry;
  jwtKeys: JwtKeys;
  readAccess: MemberAccessReader;
}

/**
 * The developer page (`GET /developer`) and its JSON routes under `/developer/api`. Only a member
 * session opens them (an API key or a test token is 401); keys are made with the CLI's module.
 */
export function developerRouter(deps: Deps, bodyLimit: string): Router {
  const { db } = deps;
  const catalogue = buildProcedureCatalogue(deps.registry);
  // The rows of the None / Read / Write scope pickers: every scope a key may be given.
  const resources = groupScopesByResource(KNOWN_SCOPES, OPT_IN_SCOPES);
  const router = express.Router({ caseSensitive: true });
  router.use(developerPageRouter());

  const api = express.Router({ caseSensitive: true });
  const requireSession: RequestHandler = async (req, res, next) => {
    const session = authenticateMemberSession(deps.jwtKeys.session, req.headers.authorization);
    const access = await deps.readAccess(session.orgId, session.memberId);
    if (!access) throw unauthorized('The member session belongs to a member who no longer exists');
    res.locals.session = session;
    res.locals.access = access;
    // Answers carry key secrets and workspace data: never cached by a browser or a proxy.
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
  const requireKeyManager: RequestHandler = (_req, res, next) => {
    assertMayManageKeys(res.locals.access as MemberAccess);
    next();
  };
  const requireJson: RequestHandler = (req, _res, next) => {
    if (!req.is('application/json')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as Content-Type: application/json');
    next();
  };
  const sessionOf = (res: express.Response) => res.locals.session as MemberSession;

  api.use(requireSession);

  api.get('/me', async (_req, res) => {
    const session = sessionOf(res);
    const access = res.locals.access as MemberAccess;
    const [member, org] = await Promise.all([membersQueries.getById(db, session.orgId, session.memberId), orgsQueries.getById(db, session.orgId)]);
    if (!member || !org) throw unauthorized('The member session belongs to a member who no longer exists');
    res.json({
      member: { id: member.id, name: member.name, email: member.email, permissions: member.permissions },
      workspace: { id: org.id, name: org.name, tier: org.tier },
      developer: access.permissions.includes(DEVELOPER_PERMISSION),
      developerApi: access.org.features.includes(DEVELOPER_API_FEATURE),
      sessionExpiresAt: session.expiresAt.toISOString(),
    });
  });

  api.get('/keys', async (_req, res) => {
    const keys = await apiKeysQueries.listByOrg(db, sessionOf(res).orgId);
    res.json({ keys: keys.map(keyView) });
  });

  api.post('/keys', requireKeyManager, requireJson, express.json({ limit: bodyLimit }), async (req, res) => {
    const parsed = createKeyBody.safeParse(req.body);
    if (!parsed.success) throw fromZodError(parsed.error);
    const expiresAt = parsed.data.expiresAt ? new Date(parsed.data.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new AppError('BAD_REQUEST', 'Invalid input: expiresAt: must be in the future', { issues: [{ path: ['expiresAt'], message: 'must be in the future' }] });
    }
    const session = sessionOf(res);
    const issued = await issueApiKey(db, KNOWN_SCOPES, { orgId: session.orgId, memberId: session.memberId, name: parsed.data.name, scopes: parsed.data.scopes, expiresAt });
    res.status(201).json({ key: { ...keyView(issued), secret: issued.key } });
  });

  api.post('/keys/:id/revoke', requireKeyManager, async (req, res) => {
    const params = revokeKeyParams.safeParse(req.params);
    if (!params.success) throw fromZodError(params.error);
    const revoked = await apiKeysQueries.revokeInOrg(db, sessionOf(res).orgId, params.data.id);
    if (!revoked) throw new AppError('NOT_FOUND', `No key ${params.data.id} in this workspace`);
    res.json({ key: keyView(revoked) });
  });

  api.post('/keys/:id/roll', requireKeyManager, requireJson, express.json({ limit: bodyLimit }), async (req, res) => {
    const params = revokeKeyParams.safeParse(req.params);
    if (!params.success) throw fromZodError(params.error);
    const body = rollKeyBody.safeParse(req.body);
    if (!body.success) throw fromZodError(body.error);
    const seconds = body.data.expirePreviousInSeconds ?? DEFAULT_PREVIOUS_SECRET_SECONDS;
    const rolled = await rollApiKey(db, sessionOf(res).orgId, params.data.id, seconds);
    res.json({ key: { ...keyView(rolled), secret: rolled.key, previousSecretExpiresAt: rolled.previousSecretExpiresAt } });
  });

  // A key's request log, as apiKeys.getRequests answers it (any member may read it, as the keys).
  api.get('/keys/:id/requests', async (req, res) => {
    const params = revokeKeyParams.safeParse(req.params);
    if (!params.success) throw fromZodError(params.error);
    const query = keyRequestsQuery.safeParse(req.query);
    if (!query.success) throw fromZodError(query.error);
    const { status, limit, ...rest } = query.data;
    const input = apiKeysGetRequestsInput.safeParse({
      ...rest, id: params.data.id, status: status !== undefined && /^\d{1,3}$/.test(status) ? Number(status) : status, limit: limit === undefined ? undefined : Number(limit),
    });
    if (!input.success) throw fromZodError(input.error);
    res.json(await keyRequestsPage(db, sessionOf(res).orgId, input.data));
  });

  api.get('/procedures', (_req, res) => {
    res.json({ routers: catalogue, resources });
  });

  router.use('/developer/api', api);
  return router;
}
