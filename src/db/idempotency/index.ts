import type { Db } from '../knex';
import { TABLES } from '../tables';
import { acrossWorkspaces } from '../across-workspaces';

/** An answer as the client got it: the HTTP status and the JSON body. */
export interface StoredAnswer {
  status: number;
  body: unknown;
}

/** The first call made with a key: what it was (to refuse reuse for another call) and its answer. */
export interface IdempotencyRecord {
  procedure: string;
  fingerprint: string;
  answer: StoredAnswer;
}

interface RecordRow {
  procedure: string;
  fingerprint: string;
  response_status: number;
  response_body: unknown;
}

/**
 * Takes the transaction-scoped advisory lock of one key: false at once when another transaction
 * holds it. It is released when the transaction ends or its connection dies, so no key can stay
 * locked after a crash.
 */
export async function tryLockKey(trx: Db, lockId: bigint): Promise<boolean> {
  const { rows } = await trx.raw<{ rows: { locked: boolean }[] }>('select pg_try_advisory_xact_lock(?::bigint) as locked', [lockId.toString()]);
  return rows[0]!.locked === true;
}

/** The record of a key that has not expired; an expired one counts as absent even before it is deleted. */
export async function findLive(db: Db, orgId: string, principalId: string, key: string): Promise<IdempotencyRecord | undefined> {
  const row = (await db(TABLES.idempotencyKeys)
    .select('procedure', 'fingerprint', 'response_status', 'response_body')
    .where({ org_id: orgId, principal_id: principalId, idempotency_key: key })
    .andWhereRaw('expires_at > now()')
    .first()) as RecordRow | undefined;
  if (!row) return undefined;
  return { procedure: row.procedure, fingerprint: row.fingerprint, answer: { status: row.response_status, body: row.response_body } };
}

/**
 * Stores the answer of a key's first call, replacing an expired record of the same key not yet
 * cleaned up (expired as of this statement's now(), which `excluded.created_at` holds: Citus
 * allows no function in the conflict clause). Answers false when a live record is already there (the caller must not commit).
 */
export async function save(
  db: Db,
  orgId: string,
  record: IdempotencyRecord & { principalId: string; key: string; ttlSeconds: number },
): Promise<boolean> {
  const { rows } = await db.raw<{ rows: unknown[] }>(
    `insert into ${TABLES.idempotencyKeys} as k
       (org_id, principal_id, idempotency_key, procedure, fingerprint, response_status, response_body, created_at, expires_at)
     values (?, ?, ?, ?, ?, ?, ?::json, now(), now() + make_interval(secs => ?))
     on conflict (org_id, principal_id, idempotency_key) do update set
       procedure = excluded.procedure, fingerprint = excluded.fingerprint, response_status = excluded.response_status,
       response_body = excluded.response_body, created_at = excluded.created_at, expires_at = excluded.expires_at
     where k.expires_at <= excluded.created_at
     returning 1`,
    [orgId, record.principalId, record.key, record.procedure, record.fingerprint, record.answer.status,
      JSON.stringify(record.answer.body), record.ttlSeconds],
  );
  return rows.length === 1;
}

/**
 * Deletes up to `limit` expired records of every workspace (maintenance, so not scoped to one);
 * answers how many. Two instances sweeping at once may delete the same rows: the second finds
 * them gone. (No SKIP LOCKED: a lock cannot be taken across shards on Citus.)
 */
export async function deleteExpired(db: Db, limit: number): Promise<number> {
  const { rowCount } = await acrossWorkspaces(db, (trx) => trx.raw<{ rowCount: number | null }>(
    `delete from ${TABLES.idempotencyKeys}
     where (org_id, principal_id, idempotency_key) in (
       select org_id, principal_id, idempotency_key from ${TABLES.idempotencyKeys}
       where expires_at <= now() limit ?)`,
    [limit],
  ));
  return rowCount ?? 0;
}
