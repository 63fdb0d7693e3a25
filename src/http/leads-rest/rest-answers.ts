import type { Response } from 'express';
import type { AnswerFormat, IdempotentAnswer } from '../../idempotency/run-idempotently';
import type { StoredAnswer } from '../../db/idempotency';
import { httpStatusOf } from '../../errors/error-codes';
import { errorBody } from '../error-handler';
import { sendJson } from '../send-json';
import { leadEtag } from './lead-etag';
import { markStoredErrorCode } from '../../api-key-requests/stored-error-code';

export const LEADS_PATH = '/api/v1/leads';

/**
 * The REST answers of one route: `status` with the output as plain JSON (none for 204), a
 * caller's error in the REST error body. The same shape is stored for an Idempotency-Key, so a
 * replay is the answer a REST caller got, never an RPC envelope.
 */
export function restFormat(status: 200 | 201 | 204): AnswerFormat {
  return {
    result: (output) => ({ status, body: status === 204 ? null : output }),
    // The error handler's own formatter, so a stored error reads exactly as a live one.
    error: (error) => ({ status: httpStatusOf(error.code), body: errorBody(error, LEADS_PATH) }),
  };
}

/**
 * The answers of `PUT /api/v1/leads/external/{externalId}` (leads.upsert): 201 with the lead when
 * the call created it, 200 when it changed it; the body is the Lead alone (the status says which).
 */
export const UPSERT_FORMAT: AnswerFormat = {
  result: (output) => {
    const { created, ...lead } = output as { created: boolean };
    return { status: created ? 201 : 200, body: lead };
  },
  error: restFormat(200).error,
};

/**
 * Writes an answer, fresh or replayed, with the headers its body implies: a lead's `ETag`, and
 * `Location` for one just created (both derived from the body, so a replay carries them too).
 */
export function sendRestAnswer(res: Response, answer: StoredAnswer | IdempotentAnswer): void {
  if ('replayed' in answer && answer.replayed) res.set('Idempotent-Replayed', 'true');
  markStoredErrorCode(res, answer);
  if (answer.status === 204) {
    res.status(204).end();
    return;
  }
  if (answer.status === 200 || answer.status === 201) {
    const lead = answer.body as { id: string; updatedAt: Date | string };
    res.set('ETag', leadEtag(lead));
    if (answer.status === 201) res.set('Location', `${LEADS_PATH}/${encodeURIComponent(lead.id)}`);
  }
  sendJson(res, answer.status, JSON.stringify(answer.body));
}
