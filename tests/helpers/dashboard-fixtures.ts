import type { Db } from '../../src/db/knex';
import { createLead, createMember, createWorkspace } from './factories';
import { insertCall } from './leads-actions-fixtures';
import type { LeadStatus } from '../../src/domain/lead-status';

/** The fixed range of the dataset: three UTC days, 2026-03-01 to 2026-03-03 (New York is UTC-5 then). */
export const FROM = new Date('2026-03-01T00:00:00.000Z');
export const TO = new Date('2026-03-04T00:00:00.000Z');

const at = (iso: string) => new Date(iso);

/**
 * A workspace with chosen leads and calls around the range's edges (see the expected numbers in
 * dashboard-lead-stats.test.ts). Members are created so that `first` sorts before `second` by id.
 */
export async function seedDashboardWorkspace(db: Db) {
  const ws = await createWorkspace(db);
  const memberIds: string[] = [];
  for (let i = 0; i < 3; i += 1) memberIds.push((await createMember(db, ws.org.id)).id);
  const [top, first, second] = memberIds.sort() as [string, string, string];
  const lead = async (status: LeadStatus, assignedToId: string | null, createdAt: string, convertedAt: string | null = null) => {
    const created = await createLead(db, ws.org.id, { status, assignedToId });
    await db('leads').where({ org_id: ws.org.id, id: created.id }).update({ created_at: at(createdAt), converted_at: convertedAt && at(convertedAt) });
    return created.id;
  };
  const l1 = await lead('NOT_CONTACTED', top, '2026-03-01T10:00:00.000Z');
  await lead('CONTACTED', top, '2026-02-15T10:00:00.000Z');
  await lead('CONVERTED', first, '2026-02-01T10:00:00.000Z', '2026-03-02T12:00:00.000Z');
  await lead('CONVERTED', null, '2026-03-01T01:00:00.000Z', '2026-03-04T00:00:00.000Z');
  await lead('LOST', null, '2026-03-04T00:00:00.000Z');
  await lead('BUSY', top, '2026-02-20T10:00:00.000Z');
  await lead('CONVERTED', first, '2026-03-01T00:00:00.000Z', '2026-03-03T23:59:59.999Z');
  await lead('QUALIFIED', second, '2025-12-01T10:00:00.000Z');
  await lead('QUALIFIED', second, '2026-02-28T23:59:59.999Z');
  await insertCall(db, ws.org.id, l1, 'CONTACTED', at('2026-03-01T02:00:00.000Z'));
  await insertCall(db, ws.org.id, l1, 'NO_ANSWER', at('2026-03-01T12:00:00.000Z'));
  await insertCall(db, ws.org.id, l1, 'BUSY', at('2026-03-02T04:59:59.999Z'));
  await insertCall(db, ws.org.id, l1, 'BUSY', at('2026-03-02T05:00:00.000Z'));
  await insertCall(db, ws.org.id, l1, 'WRONG_NUMBER', at('2026-03-03T23:59:59.999Z'));
  await insertCall(db, ws.org.id, l1, 'CONTACTED', at('2026-03-04T00:00:00.000Z'));
  await insertCall(db, ws.org.id, l1, 'CONTACTED', at('2026-02-28T23:59:59.999Z'));
  return { ...ws, members: { top, first, second } };
}

/** Per-outcome counts with the given ones set and the rest 0. */
export function outcomes(counts: Partial<Record<string, number>> = {}) {
  return { CONTACTED: 0, NO_ANSWER: 0, BUSY: 0, SWITCHED_OFF: 0, OUT_OF_SERVICE: 0, WRONG_NUMBER: 0, ...counts };
}

export function statuses(counts: Partial<Record<string, number>> = {}) {
  return {
    NOT_CONTACTED: 0, CONTACTED: 0, QUALIFIED: 0, CONVERTED: 0, LOST: 0, NO_ANSWER: 0, BUSY: 0, SWITCHED_OFF: 0, OUT_OF_SERVICE: 0, WRONG_NUMBER: 0, ...counts,
  };
}
