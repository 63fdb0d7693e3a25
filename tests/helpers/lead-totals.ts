import type { Express } from 'express';
import type { Db } from '../../src/db/knex';
import * as leads from '../../src/db/leads';
import type { LeadFields } from '../../src/db/leads';
import type { LeadStatus } from '../../src/domain/lead-status';
import { bodyOf, listLeads } from './leads-rest';

// Leads written in bulk through the leads' data module, and the list's totals checked against
// count(*), for the totals' tests (tests/integration/leads-list-totals.test.ts) and the counters'
// (tests/performance-contracts/leads-counters.test.ts).

export const STATUSES = ['NOT_CONTACTED', 'CONTACTED', 'LOST'] as const;

/** Every filter the counters answer (none, status, assignee, unassigned and their pairs), checked against count(*). */
export async function expectTotalsExact(app: Express, db: Db, ws: { org: { id: string }; key: string }, members: string[]): Promise<void> {
  const assignees = [...members, 'unassigned'];
  const cases: Record<string, string>[] = [
    {},
    ...STATUSES.map((status) => ({ status })),
    ...assignees.map((assignedToId) => ({ assignedToId })),
    ...STATUSES.flatMap((status) => assignees.map((assignedToId) => ({ status, assignedToId }))),
  ];
  for (const filters of cases) {
    const counted = db('leads').where('org_id', ws.org.id).count<{ n: string }[]>({ n: '*' });
    if (filters.status) counted.where('status', filters.status);
    if (filters.assignedToId === 'unassigned') counted.whereNull('assigned_to_id');
    else if (filters.assignedToId) counted.where('assigned_to_id', filters.assignedToId);
    const res = await listLeads(app, ws.key, { ...filters, pageSize: 1 });
    expect(res.status).toBe(200);
    expect({ filters, total: bodyOf(res).pagination.total }).toEqual({ filters, total: Number((await counted)[0]!.n) });
  }
}

/**
 * `count` contacts P1..Pn and their leads (lead_<tag>1..), the leads in one insert of the leads'
 * data module: one counter upsert, into the rows of `db`'s database session. Statuses cycle
 * CONTACTED, LOST, NOT_CONTACTED.
 */
export async function bulkInsert(db: Db, orgId: string, tag: string, count: number, assignee: string | null): Promise<void> {
  await db.raw(`insert into contacts (org_id, id, name) select ?, 'con_' || ? || g, 'P' || g from generate_series(1, ?) g`, [orgId, tag, count]);
  const statusOf = (g: number): LeadStatus => (['NOT_CONTACTED', 'CONTACTED', 'LOST'] as const)[g % 3]!;
  await db.transaction((trx) => leads.insertLeads(trx, orgId, Array.from({ length: count }, (_, i) => ({
    id: `lead_${tag}${i + 1}`, contactId: `con_${tag}${i + 1}`, status: statusOf(i + 1), assignedToId: assignee,
    source: null, notes: null, nextCallAt: null, clientId: null,
  }))));
}

/** Changes a lead as the procedures do: through the leads' write unit. */
export async function changeLead(db: Db, orgId: string, id: string, patch: Partial<LeadFields>): Promise<void> {
  await db.transaction((trx) => leads.updateLead(trx, orgId, id, { fields: patch }));
}

export async function removeLead(db: Db, orgId: string, id: string): Promise<void> {
  await db.transaction((trx) => leads.deleteLead(trx, orgId, id, { kind: 'system', id: 'test' }));
}

/** The ids of the workspace's leads matching `where`. */
export async function idsWhere(db: Db, orgId: string, where: (q: any) => unknown): Promise<string[]> {
  const query = db('leads').where('org_id', orgId).orderBy('id');
  where(query);
  return query.pluck('id');
}
