import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decideAudit, formatVerdict, type AllowlistEntry } from '../../scripts/audit-gate';

const FIXTURES = join(__dirname, '..', 'fixtures', 'npm-audit');
/** Real `npm audit --omit=dev --json` outputs: a clean report, one with findings, and a mirror's 405. */
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

const TODAY = '2026-11-23';
const MINIMIST = 'GHSA-xvch-5gv4-984h';
const SEMVER = 'GHSA-c2qf-rxjj-qqgw';

function entry(overrides: Partial<AllowlistEntry> = {}): AllowlistEntry {
  return {
    advisory: MINIMIST,
    package: 'minimist',
    reason: 'only parses our own fixed CLI arguments, never input from a request',
    reviewed: '2026-11-01',
    expires: '2027-01-31',
    ...overrides,
  };
}

const allowlist = (...entries: AllowlistEntry[]) => ({ entries });

describe('decideAudit on a report', () => {
  it('passes a report without advisories', () => {
    const verdict = decideAudit(fixture('no-advisories.json'), allowlist(), TODAY);
    expect(verdict).toMatchObject({ kind: 'checked', exitCode: 0, blocking: [], allowed: [], belowGate: [] });
    expect(formatVerdict(verdict)).toMatch(/PASS/);
  });

  it('fails on every high or critical advisory not allowed, each once, and lists lower ones without failing on them', () => {
    const verdict = decideAudit(fixture('findings.json'), allowlist(), TODAY);
    if (verdict.kind !== 'checked') throw new Error(`unexpected ${verdict.kind}`);
    expect(verdict.exitCode).toBe(1);
    // mkdirp is critical only through minimist: one advisory, not two.
    expect(verdict.blocking.map((a) => [a.severity, a.package, a.id])).toEqual([['critical', 'minimist', MINIMIST], ['high', 'semver', SEMVER]]);
    expect(verdict.belowGate.map((a) => [a.severity, a.package])).toEqual([['low', 'cookie']]);
    const summary = formatVerdict(verdict);
    expect(summary).toMatch(/FAIL: 2 high or critical advisories are not in audit-allowlist\.json/);
    expect(summary).toContain(`https://github.com/advisories/${MINIMIST}`);
  });

  it('still fails on the one high advisory left when the critical one is allowed', () => {
    const verdict = decideAudit(fixture('findings.json'), allowlist(entry()), TODAY);
    expect(verdict).toMatchObject({ kind: 'checked', exitCode: 1 });
    if (verdict.kind !== 'checked') return;
    expect(verdict.blocking.map((a) => a.id)).toEqual([SEMVER]);
    expect(verdict.allowed.map(({ advisory }) => advisory.id)).toEqual([MINIMIST]);
  });

  it.each([
    ['its GHSA id', MINIMIST],
    ['its URL', `https://github.com/advisories/${MINIMIST}`],
    ["npm's numeric id", '1097677'],
  ])('passes when every gated advisory is allowed, naming the advisory by %s', (_how, advisory) => {
    const verdict = decideAudit(fixture('findings.json'), allowlist(entry({ advisory }), entry({ advisory: SEMVER, package: 'semver' })), TODAY);
    expect(verdict).toMatchObject({ kind: 'checked', exitCode: 0, blocking: [], unusedEntries: [] });
    expect(formatVerdict(verdict)).toMatch(/Allowed by audit-allowlist\.json[\s\S]*only parses our own fixed CLI arguments[\s\S]*PASS/);
  });

  it('does not count an entry naming the advisory for another package', () => {
    const verdict = decideAudit(fixture('findings.json'), allowlist(entry({ package: 'mkdirp' }), entry({ advisory: SEMVER, package: 'semver' })), TODAY);
    expect(verdict).toMatchObject({ kind: 'checked', exitCode: 1 });
    if (verdict.kind === 'checked') expect(verdict.blocking.map((a) => a.id)).toEqual([MINIMIST]);
  });

  it('counts an entry through its expiry day and not the day after, then reports it as expired', () => {
    const both = allowlist(entry({ expires: TODAY }), entry({ advisory: SEMVER, package: 'semver' }));
    expect(decideAudit(fixture('findings.json'), both, TODAY)).toMatchObject({ kind: 'checked', exitCode: 0 });
    const dayAfter = decideAudit(fixture('findings.json'), both, '2026-11-24');
    expect(dayAfter).toMatchObject({ kind: 'checked', exitCode: 1, expiredEntries: [expect.objectContaining({ advisory: MINIMIST })] });
    expect(formatVerdict(dayAfter)).toMatch(/past their expiry[\s\S]*minimist/);
  });

  it('reports valid entries that match no advisory, without failing', () => {
    const stale = entry({ advisory: 'GHSA-aaaa-bbbb-cccc', package: 'left-pad' });
    const verdict = decideAudit(fixture('no-advisories.json'), allowlist(stale), TODAY);
    expect(verdict).toMatchObject({ kind: 'checked', exitCode: 0, unusedEntries: [stale] });
    expect(formatVerdict(verdict)).toMatch(/matching no advisory[\s\S]*left-pad/);
  });
});

describe('decideAudit on an allowlist that is not right', () => {
  it.each([
    ['without a reason', { entries: [{ ...entry(), reason: '' }] }],
    ['without an expiry', { entries: [{ advisory: MINIMIST, package: 'minimist', reason: 'a long enough reason', reviewed: '2026-11-01' }] }],
    ['with a date that is not a day', { entries: [entry({ expires: '31/01/2027' })] }],
    ['with an unknown field', { entries: [{ ...entry(), approvedBy: 'someone' }] }],
    ['reviewed in the future', { entries: [entry({ reviewed: '2026-12-01' })] }],
    ['expiring before its review', { entries: [entry({ expires: '2026-10-01' })] }],
    ['valid for more than a year', { entries: [entry({ expires: '2028-01-01' })] }],
    ['that is not a list of entries', { advisories: [] }],
  ])('fails (exit 1) for an entry %s, naming the problem', (_what, list) => {
    const verdict = decideAudit(fixture('no-advisories.json'), list, TODAY);
    expect(verdict).toMatchObject({ kind: 'invalid', exitCode: 1, problems: [expect.any(String)] });
    expect(formatVerdict(verdict)).toMatch(/FAIL: the audit gate could not decide/);
  });
});

describe('decideAudit when npm could not audit', () => {
  it("passes with a warning when the registry's advisory endpoint answers 405 (this machine's mirror)", () => {
    const verdict = decideAudit(fixture('endpoint-405.json'), allowlist(), TODAY);
    expect(verdict).toEqual({ kind: 'unavailable', exitCode: 0, reason: expect.stringMatching(/HTTP 405 .*advisories\/bulk/) });
    expect(formatVerdict(verdict)).toMatch(/^WARNING: npm audit could not get advisories/);
  });

  it.each(['ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ENOAUDIT', 'E503'])('passes with a warning when npm reports %s', (code) => {
    const output = JSON.stringify({ error: { code, summary: 'request to https://registry.npmjs.org/-/npm/v1/security/advisories/bulk failed', detail: '' } });
    expect(decideAudit(output, allowlist(), TODAY)).toMatchObject({ kind: 'unavailable', exitCode: 0 });
  });

  it.each([
    ['a lockfile is missing (ENOLOCK)', JSON.stringify({ error: { code: 'ENOLOCK', summary: 'This command requires an existing lockfile.', detail: '' } })],
    ['the output is not JSON', 'npm ERR! something broke'],
    ['the report has an unknown shape', JSON.stringify({ advisories: {} })],
    ['an advisory has no severity', JSON.stringify({ auditReportVersion: 2, vulnerabilities: { x: { via: [{ name: 'x', url: 'https://github.com/advisories/GHSA-aaaa-bbbb-cccc' }] } } })],
  ])('fails (exit 1) when %s: that is not the advisory service being down', (_what, output) => {
    expect(decideAudit(output, allowlist(), TODAY)).toMatchObject({ kind: 'invalid', exitCode: 1 });
  });
});

describe('scripts/audit.ts', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [require.resolve('tsx/cli'), join(__dirname, '..', '..', 'scripts', 'audit.ts'), ...args], { encoding: 'utf8' });

  it('exits 1 with the summary on a saved report with unlisted advisories, 0 with a warning on the 405', () => {
    const failing = run('--input', join(FIXTURES, 'findings.json'));
    expect({ status: failing.status, out: failing.stdout }).toEqual({ status: 1, out: expect.stringMatching(/FAIL: 2 high or critical/) });
    const unavailable = run('--input', join(FIXTURES, 'endpoint-405.json'));
    expect({ status: unavailable.status, out: unavailable.stdout }).toEqual({ status: 0, out: expect.stringMatching(/WARNING/) });
    expect(run('--input', join(FIXTURES, 'endpoint-405.json'), '--require-advisories').status).toBe(1);
  }, 60_000);
});
