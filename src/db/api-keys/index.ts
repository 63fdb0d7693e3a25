import type { Db } from '../knex';
import { TABLES, WRITE_TIME } from '../tables';
import { announceCacheChange } from '../cache-changes';
import { acrossWorkspaces } from '../across-workspaces';
import type { OrgTier } from '../orgs';

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
  /** The secret replaced by apiKeys.roll while it still works (null when none, or once its overlap ended). */
  previousSecret: { prefix: string; expiresAt: Date } | null;
}

/** What authentication needs to know about a key and its workspace, in one round trip. */
export interface ApiKeyForAuth {
  id: string;
  orgId: string;
  memberId: string | null;
  scopes: string[];
  secretHash: string;
  /** The secret apiKeys.roll replaced, refused from `previousSecretExpiresAt` on (at once when that is null). */
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  org: { tier: OrgTier; features: string[]; phoneRegion: string };
}

const LISTING_COLUMNS = [
  'id', 'org_id', 'member_id', 'name', 'prefix', 'scopes', 'created_at', 'expires_at', 'revoked_at', 'last_used_at',
  'previous_prefix', 'previous_secret_expires_at',
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
  previous_prefix: string | null;
  previous_secret_expires_at: Date | null;
}

function toListing(row: ListingRow): ApiKeyListing {
  const previousEnd = row.previous_secret_expires_at;
  const previousWorks = row.previous_prefix !== null && previousEnd !== null && previousEnd.getTime() > Date.now();
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
    previousSecret: previousWorks ? { prefix: row.previous_prefix!, expiresAt: previousEnd } : null,
  };
}

/**
 * Writes the key and its row in api_key_secrets (the hash's global index: one copy per node on
 * Citus, where a unique index must otherwise include the workspace) in one transaction.
 */
export function insert(
  db: Db,
  orgId: string,
  key: { id: string; memberId: string | null; name: string; prefix: string; secretHash: string; scopes: string[]; expiresAt: Date | null },
): Promise<ApiKeyListing> {
  return db.transaction(async (trx) => {
    await trx(TABLES.apiKeySecrets).insert({ secret_hash: key.secretHash, org_id: orgId, key_id: key.id });
    return insertKey(trx, orgId, key);
  });
}

async function insertKey(
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

/**
 * Operators revoke by key id alone (ids are unique across workspaces): the workspace is looked up
 * first, across workspaces, then the key is revoked in it. Revoking twice keeps the first time.
 */
export async function revoke(db: Db, keyId: string): Promise<ApiKeyListing | undefined> {
  const orgId = await findOrgOfKey(db, keyId);
  return orgId ? revokeInOrg(db, orgId, keyId) : undefined;
}

/** The workspace of a key named by id alone (operators' commands), looked up across workspaces. */
export async function findOrgOfKey(db: Db, keyId: string): Promise<string | undefined> {
  const owner = await acrossWorkspaces(db, (trx) => trx(TABLES.apiKeySecrets).select('org_id').where({ key_id: keyId }).first());
  return owner?.org_id;
}

/** A workspace revokes only its own keys; every instance forgets the key when this commits. */
export function revokeInOrg(db: Db, orgId: string, keyId: string): Promise<ApiKeyListing | undefined> {
  return db.transaction(async (trx) => {
    const [row] = await trx(TABLES.apiKeys)
      .where({ org_id: orgId, id: keyId })
      // LEAST skips the null as COALESCE would; Citus allows now() in no COALESCE of a write.
      .update({ revoked_at: trx.raw('least(revoked_at, now())') })
      .returning(LISTING_COLUMNS);
    if (!row) return undefined;
    await announceCacheChange(trx, { kind: 'key', orgId, keyId });
    return toListing(row as ListingRow);
  });
}

export type RollOutcome =
  | { outcome: 'rolled'; key: ApiKeyListing; previousSecretExpiresAt: Date | null }
  | { outcome: 'notFound' | 'revoked' | 'expired' };

/**
 * Gives a key a new secret; the one it replaces keeps working for `previousValidSeconds` (0: not
 * at all). In one transaction: the key row is locked first, so concurrent rolls of one key run one
 * after the other and the second replaces the first's secret; an older overlap still running ends
 * at once (its hash leaves api_key_secrets); the new hash joins api_key_secrets; every instance
 * forgets the key when this commits. A replaced secret's hash stays in api_key_secrets until the
 * next roll, so it is refused as rolled rather than unknown. A revoked or expired key is left as it is.
 */
export function roll(
  db: Db,
  orgId: string,
  keyId: string,
  secret: { prefix: string; secretHash: string },
  previousValidSeconds: number,
): Promise<RollOutcome> {
  return db.transaction(async (trx): Promise<RollOutcome> => {
    const current = await trx(TABLES.apiKeys)
      .select('previous_secret_hash', 'revoked_at', trx.raw(`coalesce(expires_at <= ${WRITE_TIME}, false) as expired`))
      .where({ org_id: orgId, id: keyId })
      .forUpdate()
      .first();
    if (!current) return { outcome: 'notFound' };
    if (current.revoked_at) return { outcome: 'revoked' };
    if (current.expired) return { outcome: 'expired' };
    if (current.previous_secret_hash) {
      await trx(TABLES.apiKeySecrets).where({ secret_hash: current.previous_secret_hash, org_id: orgId, key_id: keyId }).delete();
    }
    await trx(TABLES.apiKeySecrets).insert({ secret_hash: secret.secretHash, org_id: orgId, key_id: keyId });
    const [row] = await trx(TABLES.apiKeys)
      .where({ org_id: orgId, id: keyId })
      .update({
        secret_hash: secret.secretHash,
        prefix: secret.prefix,
        previous_secret_hash: trx.ref('secret_hash'),
        previous_prefix: trx.ref('prefix'),
        // Null ends the replaced secret now, whatever the clocks of the instances say.
        previous_secret_expires_at: previousValidSeconds > 0 ? trx.raw(`${WRITE_TIME} + make_interval(secs => ?)`, [previousValidSeconds]) : null,
      })
      .returning(LISTING_COLUMNS);
    await announceCacheChange(trx, { kind: 'key', orgId, keyId });
    const listing = toListing(row as ListingRow);
    return { outcome: 'rolled', key: listing, previousSecretExpiresAt: (row as ListingRow).previous_secret_expires_at };
  });
}

/**
 * Two single-shard reads: the hash's workspace and key from api_key_secrets, then the key and its
 * workspace. Runs only when the key cache misses.
 */
export async function findForAuth(db: Db, secretHash: string): Promise<ApiKeyForAuth | undefined> {
  const owner = await db(TABLES.apiKeySecrets).select('org_id', 'key_id').where({ secret_hash: secretHash }).first();
  if (!owner) return undefined;
  return findForAuthById(db, owner.org_id, owner.key_id);
}

/** The key and its workspace by id, in one single-shard read (a stream token names its key by id). */
export async function findForAuthById(db: Db, orgId: string, keyId: string): Promise<ApiKeyForAuth | undefined> {
  const row = await db({ k: TABLES.apiKeys })
    .join({ o: TABLES.organisations }, 'o.id', 'k.org_id')
    .select(
      'k.id', 'k.org_id', 'k.member_id', 'k.scopes', 'k.secret_hash', 'k.previous_secret_hash', 'k.previous_secret_expires_at',
      'k.expires_at', 'k.revoked_at',
      'o.tier', 'o.features', 'o.phone_region',
    )
    .where({ 'k.org_id': orgId, 'k.id': keyId, 'o.id': orgId })
    .first();
  if (!row) return undefined;
  return {
    id: row.id,
    orgId: row.org_id,
    memberId: row.member_id,
    scopes: row.scopes,
    secretHash: row.secret_hash,
    previousSecretHash: row.previous_secret_hash,
    previousSecretExpiresAt: row.previous_secret_expires_at,
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
