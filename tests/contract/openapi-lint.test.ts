import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../../src/openapi/document';
import { createProcedureRegistry, createSubscriptionRegistry } from '../../src/procedures';

const ROOT = join(__dirname, '..', '..');
const REDOCLY = join(ROOT, 'node_modules', '.bin', 'redocly');
const run = promisify(execFile);

interface Problem { ruleId: string; severity: 'error' | 'warn'; message: string; location?: { pointer?: string }[] }

/**
 * `redocly lint` of the document as the service builds it, with the root redocly.yaml: any error
 * or warning fails (a rule that does not fit is turned off in redocly.yaml, with the reason).
 * No network: telemetry and the update check are off.
 */
test('redocly lint finds no error or warning in the OpenAPI document', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(buildOpenApiDocument(createProcedureRegistry(), createSubscriptionRegistry()), null, 2));
    // It exits 1 when it finds errors; the JSON report on stdout is read either way.
    const { stdout } = await run(REDOCLY, ['lint', file, '--format=json', `--config=${join(ROOT, 'redocly.yaml')}`], {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((err: { stdout?: string; stderr?: string }) => {
      if (!err.stdout) throw err;
      return { stdout: err.stdout };
    });
    const report = JSON.parse(stdout) as { problems: Problem[] };
    const found = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
    expect(found).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
