import { createHash } from 'node:crypto';
import { invalidInput } from '../../errors/app-error';

/** A lead's place in the list's order: next call first (none last), newest first, then id. */
export interface LeadSortKey {
  nextCallAt: Date | null;
  createdAt: Date;
  id: string;
}

/** What a cursor is bound to: the workspace and the filters of the page it came from. */
export interface CursorScope {
  orgId: string;
  status?: string;
  assignedToId?: string;
  search?: string;
  externalId?: string;
}

const VERSION = 1;

function digest(text: string, length: number): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, length);
}

function fingerprint(scope: CursorScope): string {
  // The external id only when given, so cursors given out before it existed stay valid.
  const externalId = scope.externalId === undefined ? [] : [scope.externalId];
  return digest(JSON.stringify([scope.orgId, scope.status ?? null, scope.assignedToId ?? null, scope.search ?? null, ...externalId]), 11);
}

/**
 * An opaque cursor: base64url JSON of the key and the filters' fingerprint, then a checksum that
 * catches a cursor edited or cut by hand. It is not a secret or a signature: it only names a
 * position, and the query is limited to the caller's workspace whatever the cursor says.
 */
export function encodeLeadCursor(key: LeadSortKey, scope: CursorScope): string {
  const body = Buffer.from(
    JSON.stringify([VERSION, key.nextCallAt?.getTime() ?? null, key.createdAt.getTime(), key.id, fingerprint(scope)]),
  ).toString('base64url');
  return `${body}.${digest(body, 8)}`;
}

const refused = (message: string) => invalidInput([{ path: ['cursor'], message }]);

/** The sort key a cursor carries; a 400 when it is malformed, altered, or made for other filters. */
export function decodeLeadCursor(cursor: string, scope: CursorScope): LeadSortKey {
  const [body, check, extra] = cursor.split('.');
  if (!body || !check || extra !== undefined || digest(body, 8) !== check) {
    throw refused('is not a cursor this list gave out (malformed or altered); use pagination.nextCursor as it was answered');
  }
  const decoded = parse(body);
  if (!decoded) throw refused('is not a cursor this list gave out (malformed or altered); use pagination.nextCursor as it was answered');
  if (decoded.fingerprint !== fingerprint(scope)) {
    throw refused('was made for other filters: send the same status, assignedToId and search as the page it came from');
  }
  return decoded.key;
}

function parse(body: string): { key: LeadSortKey; fingerprint: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 5) return undefined;
  const [version, nextCallAt, createdAt, id, print] = value as unknown[];
  const isTime = (t: unknown): t is number => Number.isSafeInteger(t) && Math.abs(t as number) <= 8.64e15;
  if (version !== VERSION || !(nextCallAt === null || isTime(nextCallAt)) || !isTime(createdAt)) return undefined;
  if (typeof id !== 'string' || !/^[A-Za-z0-9_]{1,64}$/.test(id) || typeof print !== 'string') return undefined;
  return {
    key: { nextCallAt: nextCallAt === null ? null : new Date(nextCallAt), createdAt: new Date(createdAt), id },
    fingerprint: print,
  };
}
