/**
 * The decision of the `npm audit --omit=dev` gate, free of I/O so it is unit-tested on canned
 * outputs: the audit's JSON, the reviewed allowlist and today's date give a verdict. High and
 * critical advisories fail the gate unless a reviewed, unexpired allowlist entry names them;
 * lower severities are listed, not gated. When the registry's advisory service did not answer
 * (a mirror without the endpoint answers 405), the verdict says so instead of passing silently.
 */
import { z } from 'zod';

export const GATED_SEVERITIES = ['high', 'critical'] as const;
const SEVERITY_ORDER = ['info', 'low', 'moderate', 'high', 'critical'] as const;
type Severity = (typeof SEVERITY_ORDER)[number];

/** The longest an entry may stay valid after its review: past that, someone must look again. */
export const MAX_ENTRY_DAYS = 365;

export interface Advisory {
  /** `GHSA-xxxx-xxxx-xxxx` when the URL names one, else npm's numeric source id. */
  id: string;
  /** npm's numeric id of the advisory. */
  source: string;
  url: string;
  package: string;
  title: string;
  severity: Severity;
  /** The vulnerable versions. */
  range: string;
}

const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD', abort: true }).refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), 'must be a real date');

const allowlistEntry = z.strictObject({
  /** The advisory: its GHSA id, its URL, or npm's numeric source id. */
  advisory: z.string().trim().min(1),
  package: z.string().trim().min(1),
  reason: z.string().trim().min(10, 'say why it is acceptable (at least 10 characters)'),
  reviewed: isoDay,
  /** The last day the entry counts. */
  expires: isoDay,
});
export type AllowlistEntry = z.infer<typeof allowlistEntry>;

const allowlistFile = z.object({ entries: z.array(allowlistEntry) });

export type AuditVerdict =
  | { kind: 'unavailable'; exitCode: 0; reason: string }
  | { kind: 'invalid'; exitCode: 1; problems: string[] }
  | {
      kind: 'checked';
      exitCode: 0 | 1;
      /** High or critical, not allowed by a valid entry: these fail the gate. */
      blocking: Advisory[];
      allowed: { advisory: Advisory; entry: AllowlistEntry }[];
      /** Below the gate (moderate and lower): shown, not gated. */
      belowGate: Advisory[];
      /** Past their expiry: they no longer count. */
      expiredEntries: AllowlistEntry[];
      /** Valid entries matching no advisory of this run: candidates for removal. */
      unusedEntries: AllowlistEntry[];
    };

/** Errors npm reports when the advisory service could not be asked or did not answer. */
const UNREACHABLE_CODES = new Set(['ENOAUDIT', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENETUNREACH', 'EHOSTUNREACH', 'ECONNABORTED', 'ERR_SOCKET_TIMEOUT']);

function unavailableReason(report: Record<string, unknown>): string | undefined {
  const error = report.error as { code?: unknown; summary?: unknown } | undefined;
  if (typeof report.statusCode === 'number') {
    return `the advisory endpoint answered HTTP ${report.statusCode}${typeof report.uri === 'string' ? ` (${report.method ?? 'POST'} ${report.uri})` : ''}`;
  }
  if (error && typeof error.code === 'string' && (UNREACHABLE_CODES.has(error.code) || /^E[45]\d\d$/.test(error.code))) {
    return `npm could not reach the advisory service (${error.code}${typeof error.summary === 'string' && error.summary ? `: ${error.summary}` : ''})`;
  }
  return undefined;
}

function advisoryId(url: string, source: unknown): string {
  return /\/(GHSA-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})$/i.exec(url)?.[1] ?? String(source);
}

/** The advisories of an audit report (npm 7+, `auditReportVersion: 2`), each once. */
function advisoriesOf(vulnerabilities: Record<string, unknown>): Advisory[] | string {
  const found = new Map<string, Advisory>();
  for (const [name, entry] of Object.entries(vulnerabilities)) {
    const via = (entry as { via?: unknown }).via;
    if (!Array.isArray(via)) return `vulnerabilities.${name}.via is not a list`;
    for (const item of via) {
      // A string names another vulnerable package: its own entry carries the advisory.
      if (typeof item === 'string') continue;
      const a = item as { source?: unknown; name?: unknown; title?: unknown; url?: unknown; severity?: unknown; range?: unknown };
      if (typeof a.url !== 'string' || typeof a.name !== 'string' || !SEVERITY_ORDER.includes(a.severity as Severity)) {
        return `vulnerabilities.${name}.via holds an advisory without url, name or a known severity`;
      }
      const advisory: Advisory = {
        id: advisoryId(a.url, a.source), source: String(a.source ?? ''), url: a.url, package: a.name, title: String(a.title ?? ''), severity: a.severity as Severity, range: String(a.range ?? ''),
      };
      found.set(`${advisory.package} ${advisory.url}`, advisory);
    }
  }
  return [...found.values()].sort((x, y) => SEVERITY_ORDER.indexOf(y.severity) - SEVERITY_ORDER.indexOf(x.severity) || x.package.localeCompare(y.package));
}

function entryProblems(entry: AllowlistEntry, index: number, today: string): string[] {
  const at = `entries[${index}] (${entry.package} ${entry.advisory})`;
  const problems: string[] = [];
  if (entry.reviewed > today) problems.push(`${at}: reviewed ${entry.reviewed} is after today (${today})`);
  if (entry.expires < entry.reviewed) problems.push(`${at}: expires ${entry.expires} before it was reviewed (${entry.reviewed})`);
  const days = (Date.parse(entry.expires) - Date.parse(entry.reviewed)) / 86_400_000;
  if (days > MAX_ENTRY_DAYS) problems.push(`${at}: expires ${Math.round(days)} days after its review; at most ${MAX_ENTRY_DAYS}`);
  return problems;
}

function matches(entry: AllowlistEntry, advisory: Advisory): boolean {
  if (entry.package !== advisory.package) return false;
  const named = entry.advisory.trim();
  const sameId = (id: string) => id.toLowerCase() === advisory.id.toLowerCase();
  return named === advisory.url || named === advisory.source || sameId(named) || sameId(advisoryId(named, named));
}

/**
 * The verdict for one run. `auditOutput` is what `npm audit --json` printed (text or parsed),
 * `allowlist` the parsed allowlist file, `today` a `YYYY-MM-DD` day (UTC).
 */
export function decideAudit(auditOutput: unknown, allowlist: unknown, today: string): AuditVerdict {
  let report: unknown = auditOutput;
  if (typeof auditOutput === 'string') {
    try {
      report = JSON.parse(auditOutput);
    } catch {
      return { kind: 'invalid', exitCode: 1, problems: ['npm audit did not print JSON'] };
    }
  }
  if (report === null || typeof report !== 'object' || Array.isArray(report)) {
    return { kind: 'invalid', exitCode: 1, problems: ['npm audit printed no report object'] };
  }
  const record = report as Record<string, unknown>;
  if (record.vulnerabilities === undefined) {
    const reason = unavailableReason(record);
    if (reason) return { kind: 'unavailable', exitCode: 0, reason };
    const error = record.error as { code?: unknown; summary?: unknown } | undefined;
    return { kind: 'invalid', exitCode: 1, problems: [`npm audit failed: ${String(error?.summary || error?.code || record.message || 'an unknown report shape')}`] };
  }
  if (record.vulnerabilities === null || typeof record.vulnerabilities !== 'object') {
    return { kind: 'invalid', exitCode: 1, problems: ['the report\'s "vulnerabilities" is not an object'] };
  }
  const advisories = advisoriesOf(record.vulnerabilities as Record<string, unknown>);
  if (typeof advisories === 'string') return { kind: 'invalid', exitCode: 1, problems: [advisories] };

  const parsed = allowlistFile.safeParse(allowlist);
  if (!parsed.success) {
    return { kind: 'invalid', exitCode: 1, problems: parsed.error.issues.map((i) => `audit-allowlist.json ${i.path.join('.') || '(root)'}: ${i.message}`) };
  }
  const problems = parsed.data.entries.flatMap((entry, i) => entryProblems(entry, i, today));
  if (problems.length > 0) return { kind: 'invalid', exitCode: 1, problems };

  const expiredEntries = parsed.data.entries.filter((e) => e.expires < today);
  const validEntries = parsed.data.entries.filter((e) => e.expires >= today);
  const gated = advisories.filter((a) => (GATED_SEVERITIES as readonly string[]).includes(a.severity));
  const allowed: { advisory: Advisory; entry: AllowlistEntry }[] = [];
  const blocking: Advisory[] = [];
  for (const advisory of gated) {
    const entry = validEntries.find((e) => matches(e, advisory));
    if (entry) allowed.push({ advisory, entry });
    else blocking.push(advisory);
  }
  return {
    kind: 'checked',
    exitCode: blocking.length > 0 ? 1 : 0,
    blocking,
    allowed,
    belowGate: advisories.filter((a) => !gated.includes(a)),
    expiredEntries,
    unusedEntries: validEntries.filter((e) => !advisories.some((a) => matches(e, a))),
  };
}

function line(a: Advisory): string {
  return `  - ${a.severity.padEnd(8)} ${a.package}  ${a.id}  ${a.title} (${a.range})  ${a.url}`;
}

/** The summary the script prints. */
export function formatVerdict(verdict: AuditVerdict): string {
  if (verdict.kind === 'unavailable') {
    return [
      `WARNING: npm audit could not get advisories: ${verdict.reason}.`,
      'The gate could not check anything on this machine and lets the build pass (see SECURITY.md);',
      'run it where the registry answers advisory requests (registry.npmjs.org) to enforce it.',
    ].join('\n');
  }
  if (verdict.kind === 'invalid') return ['FAIL: the audit gate could not decide:', ...verdict.problems.map((p) => `  - ${p}`)].join('\n');
  const out: string[] = [];
  const total = verdict.blocking.length + verdict.allowed.length + verdict.belowGate.length;
  out.push(`npm audit --omit=dev: ${total} advisor${total === 1 ? 'y' : 'ies'} (${verdict.blocking.length + verdict.allowed.length} high or critical, ${verdict.allowed.length} of them allowed; ${verdict.belowGate.length} below the gate)`);
  if (verdict.blocking.length > 0) {
    out.push(`FAIL: ${verdict.blocking.length} high or critical advisor${verdict.blocking.length === 1 ? 'y is' : 'ies are'} not in audit-allowlist.json:`);
    out.push(...verdict.blocking.map(line));
    out.push('  Upgrade the package (npm audit fix, or an override), or add a reviewed entry with a reason and an expiry.');
  }
  if (verdict.allowed.length > 0) {
    out.push('Allowed by audit-allowlist.json:');
    out.push(...verdict.allowed.map(({ advisory, entry }) => `${line(advisory)}\n      reviewed ${entry.reviewed}, counts until ${entry.expires}: ${entry.reason}`));
  }
  if (verdict.belowGate.length > 0) out.push('Below the gate (moderate and lower, not gated):', ...verdict.belowGate.map(line));
  if (verdict.expiredEntries.length > 0) {
    out.push('Allowlist entries past their expiry (no longer counted; review again or remove):');
    out.push(...verdict.expiredEntries.map((e) => `  - ${e.package} ${e.advisory} (expired ${e.expires})`));
  }
  if (verdict.unusedEntries.length > 0) {
    out.push('Allowlist entries matching no advisory (remove them):');
    out.push(...verdict.unusedEntries.map((e) => `  - ${e.package} ${e.advisory}`));
  }
  if (verdict.exitCode === 0) out.push('PASS: no high or critical advisory outside the allowlist.');
  return out.join('\n');
}
