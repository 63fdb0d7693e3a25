import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';

// lead_json holds each lead as the REST list sends it (plain JSON, dates as ISO 8601 text),
// rendered by one SQL function, render_lead_json (migrations 20261210120100, 20261212120000), from the lead's and
// its contact's values: here from the rows as they now are, and by `createLead` from the values it
// inserts. Each field is written exactly as the Lead object's JSON.stringify writes it
// (tests/integration/leads-rest-json.test.ts). The contact is probed by its key (the workspace a
// value, OFFSET 0 so the probe is not flattened into a join): one primary-key lookup per lead,
// however stale the statistics (joined, a workspace newer than them read all its contacts for
// each lead). The workspace as a value also keeps the statement in one shard on Citus.

/** The function's first arguments, a lead `l`'s (then its contact `c`'s person fields and the lead's external_id). */
export const RENDER_ARGUMENTS = [
  'id', 'contact_id', 'status', 'source', 'notes', 'next_call_at', 'created_at', 'updated_at', 'assigned_to_id', 'client_id',
] as const;

const RENDER = `
  select l.org_id, l.id as lead_id,
    render_lead_json(${RENDER_ARGUMENTS.map((column) => `l.${column}`).join(', ')}, c.name, c.phones, c.emails, c.company, l.external_id) as json
  from ${TABLES.leads} l
  cross join lateral (
    select c.name, c.phones, c.emails, c.company from ${TABLES.contacts} c where c.org_id = ? and c.id = l.contact_id offset 0
  ) c
  where l.org_id = ?`;

type Which = { leadIds: readonly string[] } | { contactId: string };

function rendered(orgId: string, which?: Which): { sql: string; bindings: Knex.Value[] } {
  if (!which) return { sql: RENDER, bindings: [orgId, orgId] };
  if ('contactId' in which) return { sql: `${RENDER} and l.contact_id = ?`, bindings: [orgId, orgId, which.contactId] };
  return { sql: `${RENDER} and l.id = any(?::text[])`, bindings: [orgId, orgId, [...which.leadIds]] };
}

/**
 * (Re)writes the stored JSON of the given leads, or of the contact's leads. In lead order, so that
 * two writes never lock the same rows in opposite orders. The write unit (writes.ts) and
 * `seed bulk` (bulk-seed.ts) call it after their row writes.
 */
export async function storeLeadJson(trx: Knex.Transaction, orgId: string, which: Which): Promise<void> {
  const { sql, bindings } = rendered(orgId, which);
  await trx.raw(
    `insert into ${TABLES.leadJson} (org_id, lead_id, json)
     ${sql}
     order by l.id
     on conflict (org_id, lead_id) do update set json = excluded.json`,
    bindings,
  );
}

/** The workspace's leads rendered afresh, by id: what lead_json must hold (tests compare the two). */
export async function renderLeadJson(db: Db, orgId: string): Promise<{ lead_id: string; json: string }[]> {
  const { sql, bindings } = rendered(orgId);
  const { rows } = await db.raw<{ rows: { lead_id: string; json: string }[] }>(`${sql} order by l.id`, bindings);
  return rows.map(({ lead_id, json }) => ({ lead_id, json }));
}
