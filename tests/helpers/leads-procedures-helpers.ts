import type { Db } from '../../src/db/knex';

/** The 16 fields of the spec's Lead object and `externalId` (docs/decisions.md, "External ids"), sorted. */
export const LEAD_FIELDS = [
  'assignedToId',
  'clientId',
  'company',
  'contactId',
  'createdAt',
  'emails',
  'externalId',
  'id',
  'name',
  'nextCallAt',
  'notes',
  'phones',
  'primaryEmail',
  'primaryPhone',
  'source',
  'status',
  'updatedAt',
] as const;

/** tRPC v11 names, JSON-RPC numbers and statuses, written out (not imported from src/). */
const CODES = {
  BAD_REQUEST: { status: 400, number: -32600 },
  FORBIDDEN: { status: 403, number: -32003 },
  NOT_FOUND: { status: 404, number: -32004 },
  CONFLICT: { status: 409, number: -32009 },
  UNPROCESSABLE_CONTENT: { status: 422, number: -32022 },
} as const;

export interface RpcIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Asserts the HTTP status and the whole error envelope of an action call to `procedure`;
 * answers the message and the field issues for further checks.
 */
export function expectRpcFailure(
  res: { status: number; body: any },
  code: keyof typeof CODES,
  procedure: string,
): { message: string; issues: RpcIssue[] | undefined } {
  const { status, number } = CODES[code];
  expect({ status: res.status, code: res.body?.error?.json?.data?.code }).toEqual({ status, code });
  const json = res.body.error.json;
  expect(json.code).toBe(number);
  expect(json.data.httpStatus).toBe(status);
  expect(json.data.path).toBe(procedure);
  expect(typeof json.message).toBe('string');
  return { message: json.message, issues: json.data.issues };
}

/** The paths of the field issues of a 400, for `toEqual`. */
export function issuePaths(res: { body: any }): (string | number)[][] {
  return (res.body.error.json.data.issues as RpcIssue[]).map((i) => i.path);
}

export async function countRows(db: Db, orgId: string): Promise<{ leads: number; contacts: number }> {
  const [leads, contacts] = await Promise.all([
    db('leads').where({ org_id: orgId }).count({ n: '*' }).first(),
    db('contacts').where({ org_id: orgId }).count({ n: '*' }).first(),
  ]);
  return { leads: Number(leads?.n), contacts: Number(contacts?.n) };
}

export function storedLead(db: Db, orgId: string, id: string) {
  return db('leads').where({ org_id: orgId, id }).first();
}

export function storedContact(db: Db, orgId: string, id: string) {
  return db('contacts').where({ org_id: orgId, id }).first();
}

/** The lead row joined with its contact, as one snapshot to compare before and after a refused call. */
export async function snapshot(db: Db, orgId: string, leadId: string) {
  const lead = await storedLead(db, orgId, leadId);
  const contact = lead ? await storedContact(db, orgId, lead.contact_id) : undefined;
  return { lead, contact };
}
