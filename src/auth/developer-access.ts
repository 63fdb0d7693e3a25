import { AppError } from '../errors/app-error';
import * as membersQueries from '../db/members';
import type { MemberAccess } from '../db/members';
import type { Db } from '../db/knex';
import type { CacheInvalidation } from './key-invalidation';
import { createInvalidatedCache, DEFAULT_LIVE_CACHE_TTL_MS } from './invalidated-cache';

export const DEVELOPER_PERMISSION = 'DEVELOPER';
export const DEVELOPER_API_FEATURE = 'DEVELOPER_API';

/**
 * Reads a member's permissions and workspace, cached as keys are: for `cacheTtlMs`, or longer
 * while `invalidation` is live, since a change to the member or the workspace is then notified.
 * Either way removing DEVELOPER or DEVELOPER_API stops a live test token on every instance.
 */
export function createMemberAccessReader(options: {
  db: Db;
  cacheTtlMs: number;
  invalidation?: CacheInvalidation;
  liveCacheTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}) {
  const { db, cacheTtlMs, maxEntries = 10_000, now = Date.now } = options;
  const cache = createInvalidatedCache<MemberAccess & { orgId: string; memberId: string }>({
    ttlMs: cacheTtlMs,
    liveTtlMs: options.liveCacheTtlMs ?? DEFAULT_LIVE_CACHE_TTL_MS,
    invalidation: options.invalidation,
    maxEntries,
    now,
    // A member who does not exist yet may be added at any moment (an insert notifies nobody).
    cacheMisses: true,
    affects: (access, change) =>
      change.orgId === access.orgId && (change.kind === 'org' || (change.kind === 'member' && change.memberId === access.memberId)),
  });

  return async function readAccess(orgId: string, memberId: string): Promise<MemberAccess | undefined> {
    const found = await cache.getOrLoad(`${orgId}\u0000${memberId}`, async () => {
      const access = await membersQueries.getAccess(db, orgId, memberId);
      return access && { ...access, orgId, memberId };
    });
    return found && { permissions: found.permissions, org: found.org };
  };
}

export type MemberAccessReader = ReturnType<typeof createMemberAccessReader>;

/** The developer page's rule: a member with DEVELOPER in a workspace with DEVELOPER_API; 403 otherwise. */
export function assertDeveloperAccess(access: MemberAccess): void {
  if (!access.permissions.includes(DEVELOPER_PERMISSION)) {
    throw new AppError('FORBIDDEN', `This member lacks the ${DEVELOPER_PERMISSION} permission, which test tokens need`);
  }
  if (!access.org.features.includes(DEVELOPER_API_FEATURE)) {
    throw new AppError('FORBIDDEN', `This workspace lacks the ${DEVELOPER_API_FEATURE} feature, which test tokens need`);
  }
}
