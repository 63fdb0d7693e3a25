import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../../src/openapi/document';
import { createProcedureRegistry, createSubscriptionRegistry } from '../../src/procedures';
import { deref, type OpenApiDocument, type Schema } from './schema';

const ROOT = join(__dirname, '..', '..');
// openapi-typescript needs TypeScript 5's compiler API, installed beside it in packages/client.
const openapiTsPath = require.resolve('openapi-typescript', { paths: [join(ROOT, 'packages', 'client')] });

const doc = buildOpenApiDocument(createProcedureRegistry(), createSubscriptionRegistry()) as unknown as OpenApiDocument;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** Keywords that say something about a value; a schema with none of them is `unknown` in TypeScript. */
const TYPING = ['type', 'enum', 'const', '$ref', 'anyOf', 'oneOf', 'allOf', 'properties', 'items', 'prefixItems', 'additionalProperties', 'not'];

/** JSON pointers of the untyped parts (`{}` or annotations only) of a schema, through refs and combinators. */
function untypedParts(schema: unknown, at: string, seen = new Set<string>()): string[] {
  if (schema === true || schema === undefined) return [at];
  if (schema === false || schema === null || typeof schema !== 'object') return [];
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    if (seen.has(s.$ref)) return [];
    return untypedParts(deref(doc, { $ref: s.$ref }), s.$ref, new Set([...seen, s.$ref]));
  }
  if (!TYPING.some((k) => k in s)) return [at];
  const found: string[] = [];
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    ((s[key] ?? []) as unknown[]).forEach((sub, i) => found.push(...untypedParts(sub, `${at}/${key}/${i}`, seen)));
  }
  for (const [name, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) found.push(...untypedParts(sub, `${at}/properties/${name}`, seen));
  if (s.items !== undefined) found.push(...untypedParts(s.items, `${at}/items`, seen));
  return found;
}

function successResponses(): { label: string; status: string; response: Schema }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .flatMap(([method, op]) =>
        Object.entries((op.responses ?? {}) as Record<string, unknown>)
          .filter(([status]) => /^2(\d\d|XX)$/.test(status) && status !== '204')
          .map(([status, response]) => ({ label: `${method.toUpperCase()} ${path}`, status, response: deref(doc, response) }))),
  );
}

/**
 * openapi-typescript's Node API (`openapiTS` + `astToString`) on the document, in a child
 * process: one of its dependencies is ESM-only, which jest's CommonJS runtime cannot load.
 */
async function generateTypes(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-ts-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const script = `
      const { default: openapiTS, astToString } = require(${JSON.stringify(openapiTsPath)});
      const doc = JSON.parse(require('node:fs').readFileSync(${JSON.stringify(file)}, 'utf8'));
      openapiTS(doc, { silent: true }).then((ast) => process.stdout.write(astToString(ast)), (e) => { console.error(e); process.exit(1); });`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('openapi-typescript types every documented output', () => {
  test('every success answer documents a schema with no untyped (`unknown`) part', () => {
    const problems = successResponses().flatMap(({ label, status, response }) => {
      const media = Object.entries((response.content ?? {}) as Record<string, Schema>);
      if (media.length === 0) return [`${label} ${status}: no content schema`];
      return media.flatMap(([type, m]) => untypedParts(m.schema, `${label} ${status} ${type}`).map((where) => `${where}: untyped`));
    });
    expect([...new Set(problems)]).toEqual([]);
  });

  test('the generated TypeScript has no `unknown` output', async () => {
    const source = await generateTypes();
    expect(source).toContain('operations');
    const unknownOutputs = source
      .split('\n')
      .map((line, i) => ({ line: line.trim(), number: i + 1 }))
      .filter(({ line }) => /^(json\??|"application\/json"\??): unknown;?$/.test(line))
      .map(({ line, number }) => `line ${number}: ${line}`);
    expect(unknownOutputs).toEqual([]);
  }, 60_000);
});
