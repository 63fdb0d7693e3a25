import express, { type Router } from 'express';
import { assertScope, type Principal } from '../../auth/principal';
import { fromZodError } from '../../errors/zod-issues';
import { invalidInput } from '../../errors/app-error';
import * as leads from '../../db/leads';
import { leadsListQuery, toLeadListFilters } from '../../procedures/leads/lead-list.schema';
import type { Db } from '../../db/knex';
import type { HotReads } from '../../db/hot-reads';
import type { DatabaseNodes } from '../../db/nodes';
import { authenticateRestCall } from './authenticate-rest-call';
import type { RateLimiter } from '../../ratelimit/rate-limiter';
import { sendJson } from '../send-json';
import { LEADS_PATH } from './rest-answers';

/**
 * `GET /api/v1/leads`: the plain-REST list. Same data module (src/db/leads) and filters as `leads.getAll`;
 * plain JSON (dates as ISO strings); no maximum-tier rule, which the spec sets for action endpoints only.
 */
export function leadsRouter(deps: {
  db: Db;
  hotReads: HotReads;
  nodes: DatabaseNodes;
  authenticate(authorization: string | undefined): Promise<Principal>;
  rateLimiter?: RateLimiter;
}): Router {
  const router = express.Router({ caseSensitive: true });
  router.get(LEADS_PATH, async (req, res) => {
    const principal = await authenticateRestCall(deps, req, res);
    assertScope(principal, 'leads.read');
    const query = req.query; // a getter: Express 5 parses the query string on every read
    const repeated = Object.entries(query).filter(([, value]) => typeof value !== 'string');
    if (repeated.length > 0) {
      throw invalidInput(repeated.map(([name]) => ({ path: [name], message: 'give this parameter once' })));
    }
    const parsed = leadsListQuery.safeParse(query);
    if (!parsed.success) throw fromZodError(parsed.error);
    const filters = toLeadListFilters(parsed.data);
    const body = await deps.nodes.run(principal.orgId, () => leads.renderLeadsPageJson(deps.db, deps.hotReads, principal.orgId, filters, parsed.data));
    sendJson(res, 200, body);
  });
  return router;
}
