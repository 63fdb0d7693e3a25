/**
 * Rules of the service's input that JSON Schema cannot express, so the document says them in
 * words only (descriptions) and a value valid against the document can still be refused. A
 * positive contract case answered 400 counts as accepted only when EVERY issue of the answer
 * matches one of these entries (its operation, its path, its message); any other 400 on valid
 * input stays a finding.
 *
 * Keep this short and truthful. A refusal the document could express in JSON Schema (a pattern,
 * a bound, an enum, a `not`) does not belong here: that is the document being wrong or
 * incomplete, and the contract test must keep failing on it until the document is fixed.
 * Messages are the server's own (src/procedures/**, src/db/leads/cursor.ts).
 */
export interface InexpressibleRule {
  /** operationIds the rule applies to; '*' for any. */
  operations: readonly string[] | '*';
  /** The issue's path, joined with dots (`phones.0`). */
  path: RegExp;
  message: RegExp;
  /** Why JSON Schema cannot say it. */
  why: string;
}

export const INEXPRESSIBLE_RULES: readonly InexpressibleRule[] = [
  {
    operations: ['invoices.markPaid'],
    path: /^paidAt$/,
    message: /^expected a date-time not in the future, got \S+$/,
    why: 'relative to the server clock at the time of the call: JSON Schema has no "now" (format date-time has no bounds)',
  },
  {
    operations: ['dashboard.getLeadStats'],
    path: /^from$/,
    message: /^expected a date-time not after to \(\S+\)$/,
    why: 'compares two fields (from ≤ to, with to defaulting to now): JSON Schema validates each value on its own',
  },
  {
    operations: ['dashboard.getLeadStats'],
    path: /^to$/,
    message: /^expected a range of at most 366 days from from$/,
    why: 'compares two fields (to − from ≤ 366 days): JSON Schema cannot compute with two values',
  },
  {
    operations: ['dashboard.getLeadStats'],
    path: /^timeZone$/,
    message: /^expected an IANA time zone name(, e\.g\. Europe\/London or UTC \(not an offset\), got .*| the database knows, e\.g\. Europe\/London or UTC)$/,
    why: "which names exist is the runtime's (Intl) and the database's time zone data, which differ by version and take aliases: the pattern admits any name-shaped text",
  },
  {
    operations: ['leads.getAll', 'listLeads'],
    path: /^cursor$/,
    message: /^(is not a cursor this list gave out \(malformed or altered\); |was made for other filters: )/,
    why: 'an opaque token checked by its checksum and bound to the filters of the page that gave it out: no schema says which texts a server handed out',
  },
  {
    operations: ['leads.getHistory', 'contacts.getHistory', 'clients.getHistory'],
    path: /^cursor$/,
    message: /^is no entry of this (lead|contact|client)'s history: use pagination\.nextCursor as it was answered$/,
    why: "the id of an entry of this record's history, as a page handed it out: no schema says which ids the database holds",
  },
  {
    operations: ['webhooks.create', 'webhooks.update'],
    path: /^url$/,
    message: /^expected an https:\/\/ URL, e\.g\. https:\/\/hooks\.example\.com\/crm whose host has a public address \(host .* (does not resolve|resolves to a private, loopback or link-local address)\)$/,
    why: 'the SSRF policy (production) resolves the host name in DNS: what it resolves to is not in the text',
  },
  {
    operations: ['webhooks.redeliver'],
    path: /^$/,
    message: /^expected exactly one of eventIds and since$/,
    why: 'JSON Schema says it only as oneOf/not of `required` lists, which ajv strict mode refuses (strictRequired) and the client generators type as unknown; the description says it',
  },
  {
    operations: '*',
    path: /(^|\.)(id|[A-Za-z]+Id)$/,
    message: /^no (member|contact|client|lead|task|invoice|webhook endpoint) ".*" in this workspace$/,
    why: "whether a record exists is the database's state; alone it is the documented 404, together with other problems the 400 that lists them all",
  },
];

/** The field issues of a 400 (RPC `error.json.data.issues`, REST `error.issues`); undefined when it has none. */
export function issuesOf(body: string): { path: (string | number)[]; message: string }[] | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { issues?: unknown; json?: { data?: { issues?: unknown } } } };
    const issues = parsed.error?.json?.data?.issues ?? parsed.error?.issues;
    return Array.isArray(issues) && issues.length > 0 ? (issues as { path: (string | number)[]; message: string }[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a 400 on input the document calls valid is made only of rules the document cannot express. */
export function onlyInexpressible(operationId: string, body: string): boolean {
  const issues = issuesOf(body);
  return !!issues && issues.every((issue) => INEXPRESSIBLE_RULES.some((rule) =>
    (rule.operations === '*' || rule.operations.includes(operationId)) &&
    Array.isArray(issue.path) && rule.path.test(issue.path.join('.')) &&
    typeof issue.message === 'string' && rule.message.test(issue.message)));
}
