import { bearerCredentialOf } from './bearer';
import { AppError } from '../errors/app-error';
import { hashApiKeySecret, hashesEqual, isWellFormedApiKey } from '../domain/api-key-secret';
import * as apiKeysQueries from '../db/api-keys';
import type { ApiKeyForAuth } from '../db/api-keys';
import type { Db } from '../db/knex';
import type { Principal } from './principal';
import type { CacheInvalidation } from './key-invalidation';
import { createInvalidatedCache, DEFAULT_LIVE_CACHE_TTL_MS } from './invalidated-cache';

export interface KeyAuthenticatorOptions {
  db: Db;
  /** How long a verified key is trusted without asking the database again: bounds how late a revocation bites. */
  cacheTtlMs: number;
  /** Cross-instance change notifications; while live, a verified key is trusted for `liveCacheTtlMs`. */
  invalidation?: CacheInvalidation;
  liveCacheTtlMs?: number;
  maxCachedKeys?: number;
  now?: () => number;
  onBackgroundError?: (err: unknown) => void;
}

const LAST_USED_INTERVAL_MS = 60_000;

function unauthorized(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': 'Bearer realm="workspace-api"' } });
}

/**
 * Turns `Authorization: Bearer <key>` into a Principal. A malformed or mistyped key is refused
 * without touching the database (the checksum); a verified key is cached for `cacheTtlMs`, or
 * `liveCacheTtlMs` while `invalidation` is live (revocations then drop it on every instance at
 * once); expiry, and the end of a rolled key's previous secret, are checked on every request.
 */
export function createKeyAuthenticator(options: KeyAuthenticatorOptions) {
  const { db, cacheTtlMs, maxCachedKeys = 10_000, now = Date.now, onBackgroundError = () => {} } = options;
  const newCache = () => createInvalidatedCache<{ key: ApiKeyForAuth; principal: Principal }>({
    ttlMs: cacheTtlMs,
    liveTtlMs: options.liveCacheTtlMs ?? DEFAULT_LIVE_CACHE_TTL_MS,
    invalidation: options.invalidation,
    maxEntries: maxCachedKeys,
    now,
    cacheMisses: false,
    affects: ({ key }, change) =>
      change.orgId === key.orgId && (change.kind === 'org' || (change.kind === 'key' && change.keyId === key.id)),
  });
  const cache = newCache();
  // Keys named by id (behind a stream token), cached and invalidated alike.
  const cacheById = newCache();
  const lastUsedWrittenAt = new Map<string, number>();

  function lookUp(hash: string): Promise<{ key: ApiKeyForAuth; principal: Principal } | undefined> {
    return cache.getOrLoad(hash, async () => {
      const key = await apiKeysQueries.findForAuth(db, hash);
      return key && { key, principal: toPrincipal(key) };
    });
  }

  function recordUse(key: ApiKeyForAuth): void {
    const last = lastUsedWrittenAt.get(key.id) ?? 0;
    if (now() - last < LAST_USED_INTERVAL_MS) return;
    lastUsedWrittenAt.set(key.id, now());
    apiKeysQueries.touchLastUsed(db, key.orgId, key.id).catch(onBackgroundError);
  }

  /** The key after `Bearer `, from a header the caller has already parsed. */
  async function authenticateSecret(secret: string): Promise<Principal> {
    if (!isWellFormedApiKey(secret)) throw unauthorized('Invalid API key');
    const hash = hashApiKeySecret(secret);
    const found = await lookUp(hash);
    if (!found) throw unauthorized('Invalid API key');
    if (hashesEqual(found.key.secretHash, hash)) return usable(found);
    const { previousSecretHash, previousSecretExpiresAt } = found.key;
    if (!previousSecretHash || !hashesEqual(previousSecretHash, hash)) throw unauthorized('Invalid API key');
    // A secret replaced by apiKeys.roll: its end is checked here on every request, as expiry is.
    if (!previousSecretExpiresAt || previousSecretExpiresAt.getTime() <= now()) throw unauthorized('API key secret has been rolled');
    return usable(found);
  }

  function usable({ key, principal }: { key: ApiKeyForAuth; principal: Principal }): Principal {
    if (key.revokedAt) throw unauthorized('API key has been revoked');
    if (key.expiresAt && key.expiresAt.getTime() <= now()) throw unauthorized('API key has expired');
    recordUse(key);
    return principal;
  }

  return {
    authenticateSecret,
    /** A key by id, as its secret would authenticate it now (revoked, expired or gone: 401). */
    async authenticateKeyId(orgId: string, keyId: string): Promise<Principal> {
      const found = await cacheById.getOrLoad(`${orgId}\u0000${keyId}`, async () => {
        const key = await apiKeysQueries.findForAuthById(db, orgId, keyId);
        return key && { key, principal: toPrincipal(key) };
      });
      if (!found) throw unauthorized('The API key behind this token no longer exists');
      return usable(found);
    },
    async authenticate(authorization: string | undefined): Promise<Principal> {
      if (!authorization) throw unauthorized('Missing Authorization header: send Authorization: Bearer <API key>');
      const secret = bearerCredentialOf(authorization);
      if (secret === undefined) throw unauthorized('Malformed Authorization header: expected Bearer <API key>');
      return authenticateSecret(secret);
    },
  };
}

function toPrincipal(key: ApiKeyForAuth): Principal {
  return { kind: 'apiKey', id: key.id, orgId: key.orgId, memberId: key.memberId, scopes: new Set(key.scopes), org: key.org };
}

export type KeyAuthenticator = ReturnType<typeof createKeyAuthenticator>;
