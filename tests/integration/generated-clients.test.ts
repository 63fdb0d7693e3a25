import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { listen } from '../helpers/sse';

/**
 * Clients generated from the served OpenAPI document, as an integrator makes them, at the versions
 * package.json pins: @hey-api/openapi-ts (its fetch client) and openapi-typescript with
 * openapi-fetch. Each gets a small program (tests/fixtures/generated-clients/) that is type-checked
 * in strict mode beside what was generated, then run against the service: an RPC create and read,
 * the REST list, a REST update with If-Match (good, then stale) and a typed 400. No serializer, no
 * cast: what the generator wrote is used as it is.
 */

const ROOT = resolve(__dirname, '../..');
const FIXTURES = join(ROOT, 'tests/fixtures/generated-clients');
const run = promisify(execFile);
/** A package's file, found as Node finds it from `from` (openapi-typescript is packages/client's, with its TypeScript 5). */
const fileOf = (pkg: string, path: string, from = ROOT) => join(dirname(createRequire(join(from, 'package.json')).resolve(`${pkg}/package.json`)), path);
/** `node --import` this, and the generators load TypeScript 5's compiler API (typescript-5.mjs says why). */
const TYPESCRIPT_5 = ['--import', pathToFileURL(join(FIXTURES, 'typescript-5.mjs')).href];

/** Types a generator gave up on: anything typed `unknown` but an open object's index signature (comments aside). */
function unknownTypesIn(source: string): string[] {
  return source.split('\n').filter((line) => /\bunknown\b/.test(line) && !/^\s*(\*|\/\/|\/\*)/.test(line) && !/^\s*\[\w+: string\]: unknown;\s*$/.test(line));
}

const ctx = createTestContext();
let served: Awaited<ReturnType<typeof listen>>;
let baseUrl: string;
let dir: string;

beforeAll(async () => {
  served = await listen(ctx.app);
  baseUrl = served.url;
  // Inside the checkout, so the generated code and the programs find node_modules.
  dir = join(ROOT, '.tmp', `generated-clients-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const document = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).text();
  writeFileSync(join(dir, 'openapi.json'), document);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'], types: ['node'], skipLibCheck: true,
    },
    include: ['*.ts', 'hey/**/*.ts'],
  }));
  await Promise.all([
    // dist/run.mjs: the package's bin only starts it in a process of its own, without the hook.
    run(process.execPath, [...TYPESCRIPT_5, fileOf('@hey-api/openapi-ts', 'dist/run.mjs'), '-i', 'openapi.json', '-o', 'hey', '-c', '@hey-api/client-fetch'], { cwd: dir }),
    run(process.execPath, [...TYPESCRIPT_5, fileOf('openapi-typescript', 'bin/cli.js', join(ROOT, 'packages/client')), 'openapi.json', '-o', 'schema.d.ts'], { cwd: dir }),
  ]);
  for (const program of ['hey-api.ts', 'openapi-fetch.ts']) copyFileSync(join(FIXTURES, program), join(dir, program));
}, 120_000);

afterAll(async () => {
  await served?.close();
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('clients generated from GET /api/v1/openapi.json', () => {
  it('finds a type given up on, and none in what the generators wrote for inputs and outputs', () => {
    expect(unknownTypesIn('    name: unknown & unknown;\n    [key: string]: unknown;\n    id: string;')).toEqual(['    name: unknown & unknown;']);
    expect(unknownTypesIn(readFileSync(join(dir, 'hey/types.gen.ts'), 'utf8'))).toEqual([]);
    expect(unknownTypesIn(readFileSync(join(dir, 'schema.d.ts'), 'utf8'))).toEqual([]);
  });

  it('default to the address the document was fetched from', () => {
    expect(readFileSync(join(dir, 'hey/client.gen.ts'), 'utf8')).toContain(`baseUrl: '${baseUrl}'`);
  });

  it('type-check in strict mode with the programs that use them, a wrongly typed input refused', async () => {
    // Each program holds a `@ts-expect-error` on `name: 42`: were inputs untyped, that line would fail the check.
    const checked = await run(process.execPath, [fileOf('typescript', 'bin/tsc'), '-p', 'tsconfig.json'], { cwd: dir }).then(() => 'ok', (err: { stdout: string }) => err.stdout);
    expect(checked).toBe('ok');
  }, 120_000);

  it.each([['hey-api.ts'], ['openapi-fetch.ts']])('run as generated (%s): create, read, REST list, REST update with If-Match, a typed 400', async (program) => {
    const { key } = await createWorkspace(ctx.db);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', program], { cwd: dir, env: { ...process.env, BASE_URL: baseUrl, API_KEY: key } });
    const result = JSON.parse(stdout);
    expect(result).toEqual({
      created: { id: expect.stringMatching(/^lead_/), createdAtType: 'string' },
      read: { name: expect.any(String) },
      list: { status: 200, total: 1 },
      update: { good: 200, stale: 412, staleCode: 'PRECONDITION_FAILED' },
      invalid: { status: 400, code: 'BAD_REQUEST', path: ['phone'] },
    });
  }, 60_000);
});
