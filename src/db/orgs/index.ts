import type { Db } from '../knex';
import { TABLES, NEXT_UPDATED_AT } from '../tables';
import { newId } from '../../domain/ids';
import { announceCacheChange } from '../cache-changes';
import { acrossWorkspaces } from '../across-workspaces';

export type OrgTier = 'FREE' | 'PRO' | 'BUSINESS';

export interface Org {
  id: string;
  name: string;
  tier: OrgTier;
  features: string[];
  phoneRegion: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The settings a workspace changes itself (tier and features are the operators'). */
export interface OrgSettings {
  name: string;
  phoneRegion: string;
}

const COLUMNS = ['id', 'name', 'tier', 'features', 'phone_region', 'created_at', 'updated_at'];

interface OrgRow {
  id: string;
  name: string;
  tier: OrgTier;
  features: string[];
  phone_region: string;
  created_at: Date;
  updated_at: Date;
}

function toOrg(row: OrgRow): Org {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    features: row.features,
    phoneRegion: row.phone_region,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function create(
  db: Db,
  input: { name: string; tier: OrgTier; features?: string[]; phoneRegion?: string },
): Promise<Org> {
  const [row] = await db(TABLES.organisations)
    .insert({
      id: newId('org'),
      name: input.name,
      tier: input.tier,
      features: input.features ?? [],
      phone_region: input.phoneRegion ?? 'GB',
    })
    .returning(COLUMNS);
  return toOrg(row as OrgRow);
}

export async function getById(db: Db, orgId: string): Promise<Org | undefined> {
  const row = await db(TABLES.organisations).select(COLUMNS).where({ id: orgId }).first();
  return row ? toOrg(row as OrgRow) : undefined;
}

/** Locks the organisation row for the rest of the transaction; answers what an update must check. */
export async function lockForUpdate(db: Db, orgId: string): Promise<{ updatedAt: Date } | undefined> {
  const row = await db(TABLES.organisations).select('updated_at').where({ id: orgId }).forUpdate().first();
  return row ? { updatedAt: row.updated_at } : undefined;
}

/** Run it in a transaction: a changed phone region is announced to every instance's key cache (it holds the region). */
export async function update(db: Db, orgId: string, patch: Partial<OrgSettings>): Promise<Org | undefined> {
  const columns: Record<string, unknown> = {};
  if (patch.name !== undefined) columns.name = patch.name;
  if (patch.phoneRegion !== undefined) columns.phone_region = patch.phoneRegion;
  const [row] = await db(TABLES.organisations)
    .where({ id: orgId })
    .update({ ...columns, updated_at: db.raw(NEXT_UPDATED_AT) })
    .returning(COLUMNS);
  if (row && patch.phoneRegion !== undefined) await announceCacheChange(db, { kind: 'org', orgId });
  return row ? toOrg(row as OrgRow) : undefined;
}

/** Operators set a workspace's tier and features; every instance's key cache forgets the workspace at commit. */
export function setAccess(db: Db, orgId: string, access: { tier?: OrgTier; features?: string[] }): Promise<Org | undefined> {
  return db.transaction(async (trx) => {
    const [row] = await trx(TABLES.organisations)
      .where({ id: orgId })
      .update({ tier: access.tier, features: access.features, updated_at: trx.raw(NEXT_UPDATED_AT) })
      .returning(COLUMNS);
    if (!row) return undefined;
    await announceCacheChange(trx, { kind: 'org', orgId });
    return toOrg(row as OrgRow);
  });
}

/** How many workspaces there are: an operator's figure, read across workspaces. */
export async function count(db: Db): Promise<number> {
  const row = await acrossWorkspaces(db, (trx) => trx(TABLES.organisations).count<{ n: string }[]>({ n: '*' }).first());
  return Number(row?.n ?? 0);
}

export interface OrgListing {
  id: string;
  name: string;
  tier: OrgTier;
  phoneRegion: string;
  memberCount: number;
}

/** Every workspace, oldest first, with how many members each has: the operators' CLI lists them all. */
export async function listWithMemberCounts(db: Db): Promise<OrgListing[]> {
  const rows: { id: string; name: string; tier: OrgTier; phone_region: string; member_count: number }[] = await acrossWorkspaces(db, (trx) =>
    trx(`${TABLES.organisations} as o`)
      .select('o.id', 'o.name', 'o.tier', 'o.phone_region')
      .select(trx.raw('(select count(*) from ?? m where m.org_id = o.id)::int as member_count', [TABLES.orgMembers]))
      .orderBy([{ column: 'o.created_at' }, { column: 'o.id' }]));
  return rows.map((r) => ({ id: r.id, name: r.name, tier: r.tier, phoneRegion: r.phone_region, memberCount: r.member_count }));
}

/** A workspace with how many API keys it has, and how many of them still authenticate (not revoked, not expired). */
export async function getWithKeyCounts(db: Db, orgId: string): Promise<(Org & { apiKeys: { total: number; active: number } }) | undefined> {
  const row = await db(`${TABLES.organisations} as o`)
    .select(COLUMNS.map((column) => `o.${column}`))
    .select(db.raw(`(select count(*) from ?? k where k.org_id = ?)::int as keys_total`, [TABLES.apiKeys, orgId]))
    .select(db.raw(`(select count(*) from ?? k where k.org_id = ? and k.revoked_at is null and (k.expires_at is null or k.expires_at > now()))::int as keys_active`, [TABLES.apiKeys, orgId]))
    .where('o.id', orgId)
    .first();
  return row ? { ...toOrg(row as OrgRow), apiKeys: { total: row.keys_total, active: row.keys_active } } : undefined;
}
