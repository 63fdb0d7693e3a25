import type { ApiKeyListing } from '../../db/api-keys';
import type { ApiKeyOutput } from './api-key.schema';

/** A key as the app shows it: the workspace is implied, the secret and its hash never appear. */
export function toKeyListing(key: ApiKeyListing): ApiKeyOutput {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    memberId: key.memberId,
    createdAt: key.createdAt,
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    lastUsedAt: key.lastUsedAt,
    previousSecret: key.previousSecret,
  };
}
