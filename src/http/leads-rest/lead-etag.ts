import { createHash } from 'node:crypto';

/**
 * A lead's strong entity tag: a digest of its id and `updatedAt`, quoted. Every write through the
 * lead's own routes and procedures moves `updatedAt` on by at least a millisecond
 * (next_updated_at), so the milliseconds a Date keeps are enough to tell versions apart. Opaque on
 * purpose: callers compare it, never read it.
 */
export function leadEtag(lead: { id: string; updatedAt: Date | string }): string {
  const updatedAt = new Date(lead.updatedAt).toISOString();
  return `"${createHash('sha256').update(lead.id).update('\0').update(updatedAt).digest('base64url').slice(0, 22)}"`;
}

/** The entity tags of an If-Match / If-None-Match value (`W/` kept), or '*'. */
function tagsOf(header: string): '*' | string[] {
  if (header.trim() === '*') return '*';
  return header.match(/(W\/)?"[^"]*"/g) ?? [];
}

/** RFC 9110 §13.1.1: true when `*` or one of the listed tags is `etag` (strong comparison: a weak tag never matches). */
export function ifMatchHolds(header: string, etag: string): boolean {
  const tags = tagsOf(header);
  return tags === '*' || tags.includes(etag);
}

/** RFC 9110 §13.1.2: true (answer 304) when `*` or one of the listed tags is `etag` (weak comparison). */
export function isNotModified(header: string, etag: string): boolean {
  const tags = tagsOf(header);
  return tags === '*' || tags.some((tag) => tag.replace(/^W\//, '') === etag);
}
