import type { CreateAttempt } from './clients';
import { SOURCE_PREFIX } from './database';

export interface Accounting {
  keysSent: number;
  acknowledged: number;
  /** Acknowledged keys with no lead. */
  lost: string[];
  /** Keys with more than one lead. */
  doubled: string[];
  /** Acknowledged keys whose lead is not the one the acknowledgement named. */
  mismatched: string[];
  /** Keys never acknowledged (given up after the drain) or refused with a final 4xx. */
  unacknowledged: string[];
  /** Leads whose source names no key this run sent (or none at all). */
  orphans: string[];
  leadsInDatabase: number;
}

/** Exactly one lead per acknowledged key, the one acknowledged; none without a key; none doubled. */
export function account(creates: CreateAttempt[], leads: { id: string; source: string | null }[]): Accounting {
  const byKey = new Map<string, string[]>();
  const orphans: string[] = [];
  const sent = new Set(creates.map((c) => c.key));
  for (const lead of leads) {
    const key = lead.source?.startsWith(SOURCE_PREFIX) ? lead.source.slice(SOURCE_PREFIX.length) : undefined;
    if (key === undefined || !sent.has(key)) {
      orphans.push(lead.id);
      continue;
    }
    byKey.set(key, [...(byKey.get(key) ?? []), lead.id]);
  }
  const result: Accounting = {
    keysSent: creates.length,
    acknowledged: 0,
    lost: [],
    doubled: [],
    mismatched: [],
    unacknowledged: [],
    orphans,
    leadsInDatabase: leads.length,
  };
  for (const create of creates) {
    const ids = byKey.get(create.key) ?? [];
    if (ids.length > 1) result.doubled.push(create.key);
    if (create.leadId === undefined) {
      result.unacknowledged.push(create.key);
      continue;
    }
    result.acknowledged += 1;
    if (ids.length === 0) result.lost.push(create.key);
    else if (ids.length === 1 && ids[0] !== create.leadId) result.mismatched.push(create.key);
  }
  return result;
}
