import type { Knex } from 'knex';
import { TABLES } from '../tables';

/**
 * (Re)writes the stored JSON (lead_json) of the given leads, or of the contact's leads, as the
 * view lead_json_render (migration 20261205120000) renders them from the leads and contacts as
 * they now are: one renderer for every writer. In lead order, so that two writes never lock the
 * same rows in opposite orders. The write unit (writes.ts) and `seed bulk` (bulk-seed.ts) call it
 * after their row writes.
 */
export async function storeLeadJson(trx: Knex.Transaction, orgId: string, which: { leadIds: readonly string[] } | { contactId: string }): Promise<void> {
  if ('contactId' in which) {
    await trx.raw(
      `insert into ${TABLES.leadJson} (org_id, lead_id, json)
       select org_id, lead_id, json from lead_json_render where org_id = ? and contact_id = ?
       order by lead_id
       on conflict (org_id, lead_id) do update set json = excluded.json`,
      [orgId, which.contactId],
    );
    return;
  }
  // Each lead rendered by its own keys (OFFSET 0 keeps the lateral subquery from being flattened
  // into a join): two primary-key probes per lead, however stale the statistics. Planned as a
  // join, a batch of a workspace newer than the statistics read every contact of the workspace
  // for each lead (10,000 new leads: 181 s; by key: about 1 s).
  await trx.raw(
    `insert into ${TABLES.leadJson} (org_id, lead_id, json)
     select r.org_id, r.lead_id, r.json
     from unnest(?::text[]) as k(id)
     cross join lateral (
       select v.org_id, v.lead_id, v.json from lead_json_render v where v.org_id = ? and v.lead_id = k.id offset 0
     ) r
     order by r.lead_id
     on conflict (org_id, lead_id) do update set json = excluded.json`,
    [[...which.leadIds], orgId],
  );
}
