/**
 * The dependency audit gate: runs `npm audit --omit=dev --json` and fails (exit 1) on any high or
 * critical advisory that `audit-allowlist.json` does not allow (a reviewed entry with a reason and
 * an expiry). The decision is `decideAudit` in audit-gate.ts.
 *
 *   tsx scripts/audit.ts                       run npm audit and decide
 *   tsx scripts/audit.ts --input report.json   decide on a saved `npm audit --json` output
 *   tsx scripts/audit.ts --require-advisories  also fail when the advisory service does not answer
 *
 * Without --require-advisories, a registry that cannot answer advisory requests (such as a mirror
 * answering 405) gives a warning and exit 0: see SECURITY.md, "Dependency audit".
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decideAudit, formatVerdict } from './audit-gate';

const ROOT = join(__dirname, '..');
const ALLOWLIST = join(ROOT, 'audit-allowlist.json');

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

function auditOutput(): string {
  const input = argValue('--input');
  if (input !== undefined) return readFileSync(input, 'utf8');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // npm audit exits 1 whenever it finds anything (or fails): its JSON, not its status, is read.
  const run = spawnSync(npm, ['audit', '--omit=dev', '--json'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.error) throw run.error;
  return run.stdout;
}

function main(): number {
  let allowlist: unknown;
  try {
    allowlist = JSON.parse(readFileSync(ALLOWLIST, 'utf8'));
  } catch (err) {
    console.error(`FAIL: cannot read ${ALLOWLIST}: ${(err as Error).message}`);
    return 1;
  }
  const today = new Date().toISOString().slice(0, 10);
  const verdict = decideAudit(auditOutput(), allowlist, today);
  console.log(formatVerdict(verdict));
  if (verdict.kind === 'unavailable' && process.argv.includes('--require-advisories')) {
    console.log('FAIL: --require-advisories was given.');
    return 1;
  }
  return verdict.exitCode;
}

if (require.main === module) process.exitCode = main();
