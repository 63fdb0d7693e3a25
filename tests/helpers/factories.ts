import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/knex';
import * as orgsQueries from '../../src/db/orgs';
import * as membersQueries from '../../src/db/members';
import * as contacts from '../../src/db/contacts';
import * as leads from '../../src/db/leads';
import { issueApiKey } from '../../src/auth/api-keys';
import { KNOWN_SCOPES } from '../../src/auth/scopes';
import type { OrgTier } from '../../src/db/orgs';
import type { LeadFields } from '../../src/db/leads';

export const ALL_SCOPES = [...KNOWN_SCOPES];

export function unique(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}

export async function createOrg(db: Db, options: { tier?: OrgTier; features?: string[]; region?: string } = {}) {
  return orgsQueries.create(db, {
    name: unique('Org'),
    tier: options.tier ?? 'BUSINESS',
    features: options.features ?? ['DEVELOPER_API'],
    phoneRegion: options.region ?? 'GB',
  });
}

export async function createMember(db: Db, orgId: string, permissions: string[] = []) {
  const name = unique('member');
  return membersQueries.create(db, orgId, { name, email: `${name}@example.com`, permissions });
}

/** A key's secret, with the given scopes (every scope by default). */
export async function createKey(
  db: Db,
  orgId: string,
  options: { scopes?: string[]; expiresAt?: Date | null; memberId?: string } = {},
): Promise<{ id: string; key: string }> {
  const issued = await issueApiKey(db, KNOWN_SCOPES, {
    orgId,
    memberId: options.memberId,
    name: unique('key'),
    scopes: options.scopes ?? ALL_SCOPES,
    expiresAt: options.expiresAt ?? null,
  });
  return { id: issued.id, key: issued.key };
}

/** A workspace on the given tier with one member and an every-scope key. */
export async function createWorkspace(db: Db, options: { tier?: OrgTier; region?: string } = {}) {
  const org = await createOrg(db, options);
  const member = await createMember(db, org.id, ['DEVELOPER']);
  const { id: keyId, key } = await createKey(db, org.id, { memberId: member.id });
  return { org, member, key, keyId };
}

/** A lead and its contact written straight through the data modules (values are stored as given: already normalised). */
export async function createLead(
  db: Db,
  orgId: string,
  overrides: Partial<LeadFields> & { name?: string; phones?: string[]; emails?: string[]; company?: string | null } = {},
) {
  return db.transaction(async (trx) => {
    const person = {
      name: overrides.name ?? unique('Lead'),
      phones: overrides.phones ?? ['+442079460000'],
      emails: overrides.emails ?? [],
      company: overrides.company ?? null,
    };
    const { lead } = leads.newLead(person, {
      status: overrides.status ?? 'NOT_CONTACTED',
      source: overrides.source ?? null,
      notes: overrides.notes ?? null,
      nextCallAt: overrides.nextCallAt ?? null,
      assignedToId: overrides.assignedToId ?? null,
      clientId: overrides.clientId ?? null,
      externalId: overrides.externalId ?? null,
    });
    await leads.createLead(trx, orgId, lead);
    return lead;
  });
}
