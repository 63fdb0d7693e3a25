import { AppError } from '../errors/app-error';
import type { OrgTier } from '../db/orgs';

/** Who is calling: established by authentication, read by every later check. */
export interface Principal {
  /** An API key, or a playground test token (issued to a member on the developer page). */
  kind: 'apiKey' | 'playgroundToken';
  /** The key's or token's id (never its secret): what logs and events name as the actor. */
  id: string;
  orgId: string;
  memberId: string | null;
  scopes: ReadonlySet<string>;
  org: { tier: OrgTier; features: string[]; phoneRegion: string };
  /** When a playground token stops being valid (a stream token minted with it expires no later). */
  expiresAt?: Date;
}

/** The action endpoints are a feature of the maximum tier. */
export const MAXIMUM_TIER: OrgTier = 'BUSINESS';

export function assertMaximumTier(principal: Principal): void {
  if (principal.org.tier !== MAXIMUM_TIER) {
    throw new AppError(
      'FORBIDDEN',
      `This action needs the ${MAXIMUM_TIER} tier (only the REST leads list is open to every tier); this workspace is on ${principal.org.tier}`,
    );
  }
}

export function assertScope(principal: Principal, scope: string): void {
  if (!principal.scopes.has(scope)) throw new AppError('FORBIDDEN', `missing scope: ${scope}`);
}
