import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/knex';
import type { CallOutcome } from '../../src/domain/lead-status';
import { newId } from '../../src/domain/ids';

/** A lead_calls row written straight through knex, at a chosen time. */
export async function insertCall(
  db: Db,
  orgId: string,
  leadId: string,
  outcome: CallOutcome,
  createdAt: Date,
  extra: { notes?: string | null; loggedBy?: string } = {},
): Promise<string> {
  const id = newId('call');
  await db('lead_calls').insert({
    org_id: orgId, id, lead_id: leadId, outcome, notes: extra.notes ?? null, logged_by: extra.loggedBy ?? 'key_fixture', created_at: createdAt,
  });
  return id;
}

export function storedCalls(db: Db, orgId: string, leadId?: string) {
  const query = db('lead_calls').where({ org_id: orgId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  return leadId ? query.andWhere({ lead_id: leadId }) : query;
}

export async function countClients(db: Db, orgId: string): Promise<number> {
  const row = await db('clients').where({ org_id: orgId }).count({ n: '*' }).first();
  return Number(row?.n);
}

/**
 * Makes the database refuse writes to `table` rows whose `column` is `value` (a check constraint,
 * which Citus keeps on every shard; NOT VALID, so rows already there are not checked), to prove a
 * multi-row write is all or nothing. Only rows with that one value are refused, so other tests
 * sharing the database are unaffected. Answers the cleanup.
 */
export async function refuseWritesWhere(db: Db, table: 'clients' | 'leads' | 'lead_calls', column: string, value: string): Promise<() => Promise<void>> {
  const name = `test_refuse_${randomBytes(6).toString('hex')}`;
  await db.raw(`alter table ${table} add constraint ${name} check (${column} is distinct from ${quoteLiteral(value)}) not valid`);
  return async () => {
    await db.raw(`alter table ${table} drop constraint ${name}`);
  };
}

function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
