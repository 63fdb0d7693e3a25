import type { Knex } from 'knex';
import { LEAD_STATUSES } from '../src/domain/lead-status';
import { newId } from '../src/domain/ids';
import { issueApiKey } from '../src/auth/api-keys';
import { knownScopes } from '../src/procedures/scopes';
import * as orgsQueries from '../src/db/queries/orgs.queries';
import * as membersQueries from '../src/db/queries/members.queries';
import { TABLES } from '../src/db/tables';
import { COMPANIES, FIRST_NAMES, LAST_NAMES, SOURCES, pick, seededRandom } from './demo-data';

export interface DemoSummary {
  orgId: string;
  /** A key with every scope for the demo workspace: its secret is known only here. */
  key: string;
  lowerTierOrgId: string;
  lowerTierKey: string;
}

/**
 * Two demo workspaces: "Acme Sales" on the maximum tier with DEVELOPER_API, four members and
 * 300 leads across every status, schedule and assignee; "Corner Shop" on FREE, whose key is
 * refused by the action endpoints. Each load makes new workspaces (ids are random).
 */
export async function seedDemo(db: Knex): Promise<DemoSummary> {
  const random = seededRandom(42);
  const acme = await orgsQueries.create(db, { name: 'Acme Sales', tier: 'BUSINESS', features: ['DEVELOPER_API'], phoneRegion: 'GB' });
  const members = [
    await membersQueries.create(db, acme.id, { name: 'Dana Developer', email: 'dana@acme.example', permissions: ['DEVELOPER', 'ADMIN'] }),
    await membersQueries.create(db, acme.id, { name: 'Sam Seller', email: 'sam@acme.example' }),
    await membersQueries.create(db, acme.id, { name: 'Riya Rep', email: 'riya@acme.example' }),
    await membersQueries.create(db, acme.id, { name: 'Alex Admin', email: 'alex@acme.example', permissions: ['ADMIN'] }),
  ];
  await insertLeads(db, acme.id, 300, members.map((m) => m.id), random);
  const key = await issueApiKey(db, knownScopes(), { orgId: acme.id, memberId: members[0]!.id, name: 'Demo key', scopes: [...knownScopes()] });

  const shop = await orgsQueries.create(db, { name: 'Corner Shop', tier: 'FREE', phoneRegion: 'US' });
  const owner = await membersQueries.create(db, shop.id, { name: 'Olu Owner', email: 'olu@shop.example', permissions: ['ADMIN'] });
  await insertLeads(db, shop.id, 20, [owner.id], random);
  const shopKey = await issueApiKey(db, knownScopes(), { orgId: shop.id, memberId: owner.id, name: 'Demo key', scopes: ['leads.read'] });

  return { orgId: acme.id, key: key.key, lowerTierOrgId: shop.id, lowerTierKey: shopKey.key };
}

async function insertLeads(db: Knex, orgId: string, count: number, memberIds: string[], random: () => number): Promise<void> {
  const contacts: Record<string, unknown>[] = [];
  const leads: Record<string, unknown>[] = [];
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const first = pick(random, FIRST_NAMES);
    const last = pick(random, LAST_NAMES);
    const contactId = newId('con');
    // Ofcom's ranges for drama: 020 7946 0xxx and 07700 900xxx are never assigned to real lines.
    const phone = random() < 0.5 ? `+44207946${String(i % 1000).padStart(4, '0')}` : `+447700900${String(i % 1000).padStart(3, '0')}`;
    contacts.push({
      org_id: orgId,
      id: contactId,
      name: `${first} ${last}`,
      phones: [phone],
      emails: random() < 0.8 ? [`${first}.${last}${i}@example.com`.toLowerCase().replace(/[^a-z0-9.@]/g, '')] : [],
      company: random() < 0.7 ? pick(random, COMPANIES) : null,
    });
    const status = i < LEAD_STATUSES.length ? LEAD_STATUSES[i]! : pick(random, LEAD_STATUSES);
    const scheduled = status !== 'CONVERTED' && status !== 'LOST' && random() < 0.7;
    leads.push({
      org_id: orgId,
      id: newId('lead'),
      contact_id: contactId,
      status,
      source: pick(random, SOURCES),
      notes: random() < 0.3 ? 'Asked for a call back about pricing.' : null,
      next_call_at: scheduled ? new Date(now + Math.round((random() * 30 - 5) * 86_400_000)) : null,
      // Real-world skew: the first member owns most leads, a fifth have no owner.
      assigned_to_id: random() < 0.2 ? null : memberIds[Math.floor(random() ** 2 * memberIds.length)]!,
      created_at: new Date(now - Math.round(random() * 90 * 86_400_000)),
    });
  }
  await db.batchInsert(TABLES.contacts, contacts, 500);
  await db.batchInsert(TABLES.leads, leads, 500);
}
