import { AppError } from '../errors/app-error';
import { generateApiKeySecret } from '../domain/api-key-secret';
import { newId } from '../domain/ids';
import * as apiKeysQueries from '../db/api-keys';
import * as membersQueries from '../db/members';
import * as orgsQueries from '../db/orgs';
import type { ApiKeyListing } from '../db/api-keys';
import type { Db } from '../db/knex';

export interface IssuedApiKey extends ApiKeyListing {
  /** The secret: shown once, here, and never again. */
  key: string;
}

/**
 * Issues a key for a workspace. Scopes must be ones some procedure requires, so a typo cannot
 * silently produce a key that opens nothing. Used by the CLI (and later the developer page).
 */
export async function issueApiKey(
  db: Db,
  knownScopes: ReadonlySet<string>,
  input: { orgId: string; memberId?: string | null; name?: string; scopes: string[]; expiresAt?: Date | null },
): Promise<IssuedApiKey> {
  const unknown = input.scopes.filter((s) => !knownScopes.has(s));
  if (unknown.length > 0) throw new AppError('BAD_REQUEST', `Unknown scope(s): ${unknown.join(', ')}`);
  if (input.scopes.length === 0) throw new AppError('BAD_REQUEST', 'A key needs at least one scope');
  if (!(await orgsQueries.getById(db, input.orgId))) throw new AppError('NOT_FOUND', `No workspace ${input.orgId}`);
  if (input.memberId && !(await membersQueries.exists(db, input.orgId, input.memberId))) {
    throw new AppError('NOT_FOUND', `No member ${input.memberId} in workspace ${input.orgId}`);
  }
  const secret = generateApiKeySecret();
  const listing = await apiKeysQueries.insert(db, input.orgId, {
    id: newId('key'),
    memberId: input.memberId ?? null,
    name: input.name ?? 'API key',
    prefix: secret.prefix,
    secretHash: secret.hash,
    scopes: [...new Set(input.scopes)],
    expiresAt: input.expiresAt ?? null,
  });
  return { ...listing, key: secret.secret };
}

/** How long a rolled key's previous secret may keep working: seven days, long enough to redeploy everywhere. */
export const MAX_PREVIOUS_SECRET_SECONDS = 604_800;
export const DEFAULT_PREVIOUS_SECRET_SECONDS = 86_400;

export interface RolledApiKey extends IssuedApiKey {
  /** Until when the replaced secret also works; null when it stopped at once. */
  previousSecretExpiresAt: Date | null;
}

/**
 * A new secret for a workspace's key (apiKeys.roll, the developer page and `key roll`). A revoked
 * or expired key is refused with CONFLICT and left as it is: it is rolled by nobody, since no
 * secret of it works; a key of another workspace is NOT_FOUND, as for revoke.
 */
export async function rollApiKey(db: Db, orgId: string, keyId: string, previousValidSeconds: number): Promise<RolledApiKey> {
  const secret = generateApiKeySecret();
  const rolled = await apiKeysQueries.roll(db, orgId, keyId, { prefix: secret.prefix, secretHash: secret.hash }, previousValidSeconds);
  switch (rolled.outcome) {
    case 'rolled':
      return { ...rolled.key, key: secret.secret, previousSecretExpiresAt: rolled.previousSecretExpiresAt };
    case 'notFound':
      throw new AppError('NOT_FOUND', `No API key ${JSON.stringify(keyId)} in this workspace`);
    case 'revoked':
      throw new AppError('CONFLICT', `API key ${keyId} has been revoked: a revoked key cannot be rolled; create a new key`);
    case 'expired':
      throw new AppError('CONFLICT', `API key ${keyId} has expired: an expired key cannot be rolled; create a new key`);
  }
}
