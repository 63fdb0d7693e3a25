import type { Knex } from 'knex';
import { LEAD_STATUSES } from '../src/domain/lead-status';
import { newId } from '../src/domain/ids';
import { issueApiKey } from '../src/auth/api-keys';
import { KNOWN_SCOPES, OPT_IN_SCOPES } from '../src/auth/scopes';
import * as orgsQueries from '../src/db/orgs';
import * as membersQueries from '../src/db/members';
import { TABLES } from '../src/db/tables';
import * as leadsData from '../src/db/leads';
import type { NewLead } from '../src/db/leads';
import { COMPANIES, FIRST_NAMES, LAST_NAMES, SOURCES, demoEmail, demoPhone, pick, seededRandom } from './demo-data';

export interface DemoSummary {
  orgId: string;
  /** A key with every scope for the demo workspace: its secret is known only here. */
  key: string;
  lowerTierOrgId: string;
  lowerTierKey: string;
}

/**
 * Two demo workspaces: "Acme Sales" on the maximum tier with DEVELOPER_API, four members and
 * 300 leads across every status, schedule and assignee (each CONVERTED one with its client);
 * "Corner Shop" on FREE, in the US, whose key is refused by the action endpoints. Every record is
 * one the API accepts as it is (tests/integration/demo-data-valid.test.ts). Each load makes new
 * workspaces (ids are random).
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
  await insertLeads(db, acme, 300, members.map((m) => m.id), random);
  // Every scope but the opt-in ones (contacts.erase): a demo key must not forget people by accident.
  const scopes = [...KNOWN_SCOPES].filter((scope) => !OPT_IN_SCOPES.has(scope));
  const key = await issueApiKey(db, KNOWN_SCOPES, { orgId: acme.id, memberId: members[0]!.id, name: 'Demo key', scopes });

  const shop = await orgsQueries.create(db, { name: 'Corner Shop', tier: 'FREE', phoneRegion: 'US' });
  const owner = await membersQueries.create(db, shop.id, { name: 'Olu Owner', email: 'olu@shop.example', permissions: ['ADMIN'] });
  await insertLeads(db, shop, 20, [owner.id], random);
  const shopKey = await issueApiKey(db, KNOWN_SCOPES, { orgId: shop.id, memberId: owner.id, name: 'Demo key', scopes: ['leads.read'] });

  return { orgId: acme.id, key: key.key, lowerTierOrgId: shop.id, lowerTierKey: shopKey.key };
}

async function insertLeads(
  db: Knex,
  org: { id: string; phoneRegion: string },
  count: number,
  memberIds: string[],
  random: () => number,
): Promise<void> {
  const orgId = org.id;
  const contacts: Record<string, unknown>[] = [];
  const clients: Record<string, unknown>[] = [];
  const leads: NewLead[] = [];
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const first = pick(random, FIRST_NAMES);
    const last = pick(random, LAST_NAMES);
    const contactId = newId('con');
    const name = `${first} ${last}`;
    const phone = demoPhone(random, org.phoneRegion, i);
    const emails = random() < 0.8 ? [demoEmail(first, last, i)] : [];
    const company = random() < 0.7 ? pick(random, COMPANIES) : null;
    const createdAt = new Date(now - Math.round(random() * 90 * 86_400_000));
    // leads.create writes the contact and its lead together.
    contacts.push({ org_id: orgId, id: contactId, name, phones: [phone], emails, company, created_at: createdAt });
    const status = i < LEAD_STATUSES.length ? LEAD_STATUSES[i]! : pick(random, LEAD_STATUSES);
    const scheduled = status !== 'CONVERTED' && status !== 'LOST' && random() < 0.7;
    // As leads.convert leaves a lead: linked to a client made from its contact, and when it was
    // converted recorded (the dashboard's conversion counts read it).
    let clientId: string | null = null;
    let convertedAt: Date | null = null;
    if (status === 'CONVERTED') {
      clientId = newId('cli');
      convertedAt = new Date(createdAt.getTime() + Math.round(random() * (now - createdAt.getTime())));
      clients.push({
        org_id: orgId, id: clientId, name, contact_id: contactId, company, email: emails[0] ?? null, phone, notes: null,
        created_at: convertedAt, updated_at: convertedAt,
      });
    }
    leads.push({
      id: newId('lead'),
      contactId,
      status,
      source: pick(random, SOURCES),
      notes: random() < 0.3 ? 'Asked for a call back about pricing.' : null,
      nextCallAt: scheduled ? new Date(now + Math.round((random() * 30 - 5) * 86_400_000)) : null,
      // Real-world skew: the first member owns most leads, a fifth have no owner.
      assignedToId: random() < 0.2 ? null : memberIds[Math.floor(random() ** 2 * memberIds.length)]!,
      clientId,
      convertedAt,
      createdAt,
    });
  }
  await db.transaction(async (trx) => {
    await db.batchInsert(TABLES.contacts, contacts, 500).transacting(trx);
    await db.batchInsert(TABLES.clients, clients, 500).transacting(trx);
    // Through the leads' data module: their counters, search copies and stored JSON come with them.
    await leadsData.insertLeads(trx, orgId, leads);
  });
}
