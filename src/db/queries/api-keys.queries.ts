import type { Db } from '../knex';
import { TABLES } from '../tables';
import type { OrgTier } from './orgs.queries';

/** A key as listings show it: never the secret, never its hash. */
export interface ApiKeyListing {
  id: string;
  orgId: string;
  memberId: string | null;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** What authentication needs to know about a key and its workspace, in one round trip. */
export interface ApiKeyForAuth {
  id: string;
  orgId: string;
  memberId: string | null;
  scopes: string[];
  secretHash: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  org: { tier: OrgTier; features: string[]; phoneRegion: string };
}

const LISTING_COLUMNS = [
  'id', 'org_id', 'member_id', 'name', 'prefix', 'scopes', 'created_at', 'expires_at', 'revoked_at', 'last_used_at',
];

interface ListingRow {
  id: string;
  org_id: string;
  member_id: string | null;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

function toListing(row: ListingRow): ApiKeyListing {
  return {
    id: row.id,
    orgId: row.org_id,
    memberId: row.member_id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

export async function insert(
  db: Db,
  orgId: string,
  key: { id: string; memberId: string | null; name: string; prefix: string; secretHash: string; scopes: string[]; expiresAt: Date | null },
): Promise<ApiKeyListing> {
  const [row] = await db(TABLES.apiKeys)
    .insert({
      org_id: orgId,
      id: key.id,
      member_id: key.memberId,
      name: key.name,
      prefix: key.prefix,
      secret_hash: key.secretHash,
      scopes: key.scopes,
      expires_at: key.expiresAt,
    })
    .returning(LISTING_COLUMNS);
  return toListing(row as ListingRow);
}

export async function listByOrg(db: Db, orgId: string): Promise<ApiKeyListing[]> {
  const rows = await db(TABLES.apiKeys).select(LISTING_COLUMNS).where({ org_id: orgId }).orderBy([
    { column: 'created_at', order: 'desc' },
    { column: 'id', order: 'desc' },
  ]);
  return (rows as ListingRow[]).map(toListing);
}

/** Operators revoke by key id alone (ids are unique across workspaces). Revoking twice keeps the first time. */
export function revoke(db: Db, keyId: string): Promise<ApiKeyListing | undefined> {
  return revokeWhere(db, { id: keyId });
}

/** A workspace revokes only its own keys. */
export function revokeInOrg(db: Db, orgId: string, keyId: string): Promise<ApiKeyListing | undefined> {
  return revokeWhere(db, { org_id: orgId, id: keyId });
}

async function revokeWhere(db: Db, where: Record<string, string>): Promise<ApiKeyListing | undefined> {
  const [row] = await db(TABLES.apiKeys)
    .where(where)
    .update({ revoked_at: db.raw('coalesce(revoked_at, now())') })
    .returning(LISTING_COLUMNS);
  return row ? toListing(row as ListingRow) : undefined;
}

export async function findForAuth(db: Db, secretHash: string): Promise<ApiKeyForAuth | undefined> {
  const row = await db({ k: TABLES.apiKeys })
    .join({ o: TABLES.organisations }, 'o.id', 'k.org_id')
    .select(
      'k.id', 'k.org_id', 'k.member_id', 'k.scopes', 'k.secret_hash', 'k.expires_at', 'k.revoked_at',
      'o.tier', 'o.features', 'o.phone_region',
    )
    .where('k.secret_hash', secretHash)
    .first();
  if (!row) return undefined;
  return {
    id: row.id,
    orgId: row.org_id,
    memberId: row.member_id,
    scopes: row.scopes,
    secretHash: row.secret_hash,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    org: { tier: row.tier, features: row.features, phoneRegion: row.phone_region },
  };
}

/** Records use at most once a minute per key, however many instances serve it. */
export async function touchLastUsed(db: Db, orgId: string, keyId: string): Promise<void> {
  await db(TABLES.apiKeys)
    .where({ org_id: orgId, id: keyId })
    .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', db.raw("now() - interval '1 minute'")))
    .update({ last_used_at: db.fn.now() });
}
