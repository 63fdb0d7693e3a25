import type { Db } from '../knex';
import { TABLES, NEXT_UPDATED_AT } from '../tables';
import { newId } from '../../domain/ids';

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

export async function update(db: Db, orgId: string, patch: Partial<OrgSettings>): Promise<Org | undefined> {
  const columns: Record<string, unknown> = {};
  if (patch.name !== undefined) columns.name = patch.name;
  if (patch.phoneRegion !== undefined) columns.phone_region = patch.phoneRegion;
  const [row] = await db(TABLES.organisations)
    .where({ id: orgId })
    .update({ ...columns, updated_at: db.raw(NEXT_UPDATED_AT) })
    .returning(COLUMNS);
  return row ? toOrg(row as OrgRow) : undefined;
}

export async function count(db: Db): Promise<number> {
  const row = await db(TABLES.organisations).count<{ n: string }[]>({ n: '*' }).first();
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
  const rows: { id: string; name: string; tier: OrgTier; phone_region: string; member_count: number }[] = await db(`${TABLES.organisations} as o`)
    .select('o.id', 'o.name', 'o.tier', 'o.phone_region')
    .select(db.raw('(select count(*) from ?? m where m.org_id = o.id)::int as member_count', [TABLES.orgMembers]))
    .orderBy([{ column: 'o.created_at' }, { column: 'o.id' }]);
  return rows.map((r) => ({ id: r.id, name: r.name, tier: r.tier, phoneRegion: r.phone_region, memberCount: r.member_count }));
}

/** A workspace with how many API keys it has, and how many of them still authenticate (not revoked, not expired). */
export async function getWithKeyCounts(db: Db, orgId: string): Promise<(Org & { apiKeys: { total: number; active: number } }) | undefined> {
  const row = await db(`${TABLES.organisations} as o`)
    .select(COLUMNS.map((column) => `o.${column}`))
    .select(db.raw(`(select count(*) from ?? k where k.org_id = o.id)::int as keys_total`, [TABLES.apiKeys]))
    .select(db.raw(`(select count(*) from ?? k where k.org_id = o.id and k.revoked_at is null and (k.expires_at is null or k.expires_at > now()))::int as keys_active`, [TABLES.apiKeys]))
    .where('o.id', orgId)
    .first();
  return row ? { ...toOrg(row as OrgRow), apiKeys: { total: row.keys_total, active: row.keys_active } } : undefined;
}
