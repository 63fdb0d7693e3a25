import type { OrgTier } from '../db/orgs';

/** Every budget is counted over one minute. */
export const WINDOW_SECONDS = 60;

/**
 * Requests per minute per API key (or playground token), by the workspace's tier. FREE and PRO
 * keys reach only the REST leads list (the action endpoints answer them 403), so their budgets
 * are for that list; BUSINESS is sized for a program syncing in a loop (20 a second).
 */
export const TIER_LIMITS_PER_MINUTE: Readonly<Record<OrgTier, number>> = { FREE: 60, PRO: 600, BUSINESS: 1200 };

/** Failed authentications per minute per client address, unless configured otherwise. */
export const DEFAULT_FAILED_AUTH_PER_MINUTE = 30;

/** The per-key limit of each tier: the tier's own, or `perMinute` for every tier when it is given. */
export function keyLimitsOf(perMinute: number | undefined): Record<OrgTier, number> {
  if (perMinute === undefined) return { ...TIER_LIMITS_PER_MINUTE };
  return { FREE: perMinute, PRO: perMinute, BUSINESS: perMinute };
}
