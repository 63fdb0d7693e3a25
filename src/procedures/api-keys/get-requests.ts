import { z } from 'zod';
import type { Db } from '../../db/knex';
import { defineProcedure } from '../../rpc/define-procedure';
import * as apiKeyRequestsQueries from '../../db/api-key-requests';
import { AppError } from '../../errors/app-error';
import { documented, enumOf, idOf, objectOf, text, withKind } from '../shared/fields';
import { expected } from '../shared/expected';
import { DEFAULT_PAGE_SIZE, pageSizeNumber } from '../shared/pagination.schema';
import { REQUEST_LOG_ID } from '../../api-key-requests/request-id';
import { keyRequestsPageOutput } from './key-requests.schema';

const STATUS_WORDS = 'an HTTP status from 100 to 599, or failed (400 and above) or succeeded (below 400), e.g. 403';
const statusError = (issue: z.core.$ZodRawIssue) => expected(STATUS_WORDS, issue.input);
/** An exact status or a class of them: one field, one message, whichever part the value missed. */
const statusField = withKind('wholeNumber', documented(
  z.union([
    z.number({ error: statusError }).int({ error: statusError }).min(100, { error: statusError }).max(599, { error: statusError }),
    enumOf(['failed', 'succeeded']),
  ], { error: statusError }),
  { examples: ['failed'], description: 'An exact HTTP status, or `failed` (>= 400) or `succeeded` (< 400).' },
));

export const apiKeysGetRequestsInput = objectOf({
  id: idOf('key'),
  status: statusField.optional(),
  /** A procedure's name (`leads.create`) or a REST route as the log names it (`GET /api/v1/leads/{id}`). */
  procedure: text(200, { example: 'leads.create' }).optional(),
  /** The previous page's `nextCursor`. */
  after: text(64, { example: 'req_0Ud2Kq7a3kTMd9VbX2qL' }).optional(),
  limit: pageSizeNumber.default(DEFAULT_PAGE_SIZE),
});

export const apiKeysGetRequests = defineProcedure({
  name: 'apiKeys.getRequests',
  method: 'GET',
  scope: 'apiKeys.read',
  exposed: false,
  description: "A key's request log, newest first: time, method, procedure or route, status, error code, duration, request id and client address; never bodies, inputs, headers or secrets (app only).",
  input: apiKeysGetRequestsInput,
  output: keyRequestsPageOutput,
  handler: ({ ctx, input }) => keyRequestsPage(ctx.db, ctx.orgId, input),
});

export type KeyRequestsInput = z.output<typeof apiKeysGetRequestsInput>;

/** A page of a key's log (the procedure's and the developer page's route): another workspace's key is a 404. */
export async function keyRequestsPage(db: Db, orgId: string, input: KeyRequestsInput) {
  if (input.after !== undefined && !REQUEST_LOG_ID.test(input.after)) {
    const message = 'expected the nextCursor of a previous page, e.g. req_0Ud2Kq7a3kTMd9VbX2qL';
    throw new AppError('BAD_REQUEST', `Invalid input: after: ${message}`, { issues: [{ path: ['after'], message }] });
  }
  if (!(await apiKeyRequestsQueries.keyExists(db, orgId, input.id))) {
    throw new AppError('NOT_FOUND', `No API key ${JSON.stringify(input.id)} in this workspace`);
  }
  const { requests, more } = await apiKeyRequestsQueries.pageOfKey(
    db, orgId, input.id, { status: input.status, procedure: input.procedure }, { after: input.after, limit: input.limit },
  );
  return { requests, nextCursor: more ? requests.at(-1)!.id : null };
}
