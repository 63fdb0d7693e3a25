import type { Db } from '../../src/db/knex';
import * as leads from '../../src/db/leads';
import type { NewLead } from '../../src/db/leads';

/**
 * `count` leads with contacts in `orgId`, in batches through the leads' data module (their search
 * copies, counters and stored JSON with them), ids tagged with `tag`; statuses, next calls and
 * assignees (`members`, every fifth unassigned) vary with the number. Analyses after each batch,
 * as `seed bulk` does.
 */
export async function seedLeads(db: Db, orgId: string, tag: string, count: number, members: string[]): Promise<void> {
  await db.raw(
    `insert into contacts (org_id, id, name, phones, company)
     select ?, 'con_' || ? || g, 'Person ' || md5(g::text), array['+4420' || lpad(((g * 7919) % 100000000)::text, 8, '0')], 'Company ' || (g % 500)
     from generate_series(1, ?) g`,
    [orgId, tag, count],
  );
  const now = Date.now();
  const lead = (g: number): NewLead => ({
    id: `lead_${tag}${g}`, contactId: `con_${tag}${g}`, status: (['NOT_CONTACTED', 'CONTACTED', 'QUALIFIED', 'LOST'] as const)[g % 4]!,
    nextCallAt: g % 3 === 0 ? new Date(now + g * 60_000) : null, assignedToId: g % 5 === 0 ? null : members[g % members.length]!,
    createdAt: new Date(now - g * 1000), source: null, notes: null, clientId: null,
  });
  for (let from = 1; from <= count; from += 10_000) {
    const batch = Array.from({ length: Math.min(10_000, count - from + 1) }, (_, i) => lead(from + i));
    await db.transaction((trx) => leads.insertLeads(trx, orgId, batch));
    // Statistics that do not know the workspace plan its keyed lookups as for an empty one.
    await db.raw('analyze leads; analyze contacts');
  }
}
