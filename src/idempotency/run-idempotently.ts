import { AppError } from '../errors/app-error';
import { httpStatusOf } from '../errors/error-codes';
import { toAppError } from '../errors/to-app-error';
import { encodeError, encodeResult } from '../rpc/envelope';
import * as idempotencyQueries from '../db/idempotency';
import type { StoredAnswer } from '../db/idempotency';
import type { Db } from '../db/knex';
import { advisoryLockId, requestFingerprint } from './idempotency-hashes';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency-key';
import { isStoredError } from './stored-errors';

/** How long a key's answer is replayed (Stripe keeps them 24 hours). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

export interface IdempotentCall {
  orgId: string;
  /** The API key's or playground token's id: keys are scoped to it. */
  principalId: string;
  key: string;
  procedure: string;
  /** The raw request body, part of the fingerprint. */
  body: Buffer;
  /** How an output or a caller's error is written down as the answer; the action endpoints' envelope by default. */
  format?: AnswerFormat;
}

/** The answer a call's output or error makes, as the route sends it (and a replay sends it again). */
export interface AnswerFormat {
  result(output: unknown): StoredAnswer;
  error(error: AppError): StoredAnswer;
}

/** The action endpoints' answers: the tRPC envelope, the error naming the procedure as its path. */
export function envelopeFormat(procedure: string): AnswerFormat {
  return {
    result: (output) => ({ status: 200, body: encodeResult(output) }),
    error: (error) => ({ status: httpStatusOf(error.code), body: encodeError(error, procedure) }),
  };
}

/** The answer to write out exactly as is; `replayed` when it is a stored one. */
export interface IdempotentAnswer extends StoredAnswer {
  replayed: boolean;
}

/**
 * Runs one call at most once per key, in ONE transaction: take the key's advisory lock (held:
 * another call with the key is in flight, 409), replay a live stored answer (another request
 * under the key: 422), else run the handler on this transaction and store its answer in it, so
 * the effect and its answer commit together or not at all. Nothing can stay "in flight": the
 * lock dies with the transaction or its connection. `run` must use only the db it is given (on
 * the embedded database a query on another connection would wait for this transaction forever).
 */
export async function runIdempotently(db: Db, call: IdempotentCall, run: (db: Db) => Promise<unknown>): Promise<IdempotentAnswer> {
  const fingerprint = requestFingerprint(call.procedure, call.body);
  return db.transaction(async (trx) => {
    if (!(await idempotencyQueries.tryLockKey(trx, advisoryLockId(call.orgId, call.principalId, call.key)))) throw inProgress();
    const stored = await idempotencyQueries.findLive(trx, call.orgId, call.principalId, call.key);
    if (stored) {
      if (stored.fingerprint !== fingerprint) throw reused(stored.procedure, call.procedure);
      return { ...stored.answer, replayed: true };
    }
    const answer = await answerOf(trx, call.format ?? envelopeFormat(call.procedure), run);
    const saved = await idempotencyQueries.save(trx, call.orgId, {
      principalId: call.principalId, key: call.key, procedure: call.procedure, fingerprint, answer, ttlSeconds: IDEMPOTENCY_TTL_SECONDS,
    });
    // Unreachable while the lock is held; if it ever is, roll the effect back rather than double it.
    if (!saved) throw inProgress();
    return { ...answer, replayed: false };
  });
}

/**
 * The handler's answer in a savepoint: a caller's error (404, 409...) rolls its writes back and
 * is stored like a success; any other error propagates and rolls everything back unstored.
 */
async function answerOf(trx: Db, format: AnswerFormat, run: (db: Db) => Promise<unknown>): Promise<StoredAnswer> {
  let output: unknown;
  try {
    output = await trx.transaction((savepoint) => run(savepoint));
  } catch (err) {
    const error = toAppError(err);
    if (!isStoredError(error)) throw err;
    return format.error(error);
  }
  return format.result(output);
}

function inProgress(): AppError {
  return new AppError('CONFLICT', `A request with this ${IDEMPOTENCY_KEY_HEADER} is in progress; retry once it has finished`, {
    headers: { 'Retry-After': '1' },
  });
}

function reused(first: string, now: string): AppError {
  const what = first === now ? `${first} with a different body` : first;
  return new AppError(
    'UNPROCESSABLE_CONTENT',
    `This ${IDEMPOTENCY_KEY_HEADER} was already used for another request (${what}); use a new key for a new request`,
  );
}
