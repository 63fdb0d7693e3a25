import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { NAMED_STATEMENTS } from '../helpers/server-process';
import { TEST_JWT_SECRETS } from '../helpers/test-secrets';
import { DEVELOPER_CSP } from '../../src/http/developer-page/page-route';
import { developerAssetsFromSource } from '../../src/http/developer-page/page-assets';

// The image itself is built and run by `npm run test:image` (podman, minutes); this runs what the
// image runs, in seconds: the Dockerfile's own CMD and HEALTHCHECK commands, on the compiled
// output laid out as in the runtime stage (production dependencies only), in production mode.
const ROOT = join(__dirname, '..', '..');
const SECRETS = TEST_JWT_SECRETS;

/** An exec-form instruction of the Dockerfile (`CMD [...]`, `HEALTHCHECK ... CMD [...]`) as argv. */
function dockerfileCommand(instruction: 'CMD' | 'HEALTHCHECK'): string[] {
  const lines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ').split('\n');
  const line = lines.filter((l) => l.startsWith(`${instruction} `)).at(-1);
  const argv = line && /CMD\s+(\[.*\])\s*$/.exec(line)?.[1];
  if (!argv) throw new Error(`no exec-form ${instruction} in the Dockerfile`);
  return JSON.parse(argv) as string[];
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/** Builds with `npm run build` (as the image does) when dist/ is missing or older than a source. */
function ensureBuilt(): void {
  const entry = join(ROOT, 'dist', 'src', 'index.js');
  const sources = ['src', 'migrations', 'seeds', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build-developer-page.ts'].map((p) => newestMtime(join(ROOT, p)));
  if (existsSync(entry) && statSync(entry).mtimeMs >= Math.max(...sources)) return;
  try {
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe' });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`npm run build failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

/**
 * The runtime stage's layout in a temporary folder: a copy of dist/, package.json, a node_modules
 * holding only what `npm ci --omit=dev` installs (the lockfile's non-dev packages, linked), and
 * `workspace-api` on PATH as a link to the CLI. A run-time import of a dev dependency fails here.
 */
function imageLayout(): { app: string; bin: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'wsapi-image-'));
  const app = join(root, 'app');
  const bin = join(root, 'bin');
  mkdirSync(join(app, 'node_modules'), { recursive: true });
  mkdirSync(bin);
  cpSync(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(app, 'package.json'));
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  for (const [path, entry] of Object.entries(lock.packages)) {
    const topLevel = path.startsWith('node_modules/') && !path.slice('node_modules/'.length).includes('node_modules/');
    if (!topLevel || entry.dev || !existsSync(join(ROOT, path))) continue;
    mkdirSync(join(app, path, '..'), { recursive: true });
    symlinkSync(join(ROOT, path), join(app, path), 'dir');
  }
  chmodSync(join(app, 'dist/src/cli/main.js'), 0o755);
  symlinkSync(join(app, 'dist/src/cli/main.js'), join(bin, 'workspace-api'));
  return { app, bin, remove: () => rmSync(root, { recursive: true, force: true }) };
}

let image: ReturnType<typeof imageLayout>;

/** The environment compose gives the container: nothing inherited from this test process. */
function productionEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = { PATH: `${image.bin}:${process.env.PATH ?? ''}`, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', DATABASE_URL: testDatabaseUrl(), DB_NAMED_STATEMENTS: NAMED_STATEMENTS, ...SECRETS, ...overrides };
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
}

function spawnArgv(argv: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const [command, ...args] = argv;
  return spawn(command === 'node' ? process.execPath : command!, args, { cwd: image.app, env });
}

/** Runs to the end; answers the exit code and what was printed. */
async function runToExit(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawnArgv(argv, env);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += String(chunk)));
  child.stderr!.on('data', (chunk) => (err += String(chunk)));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, out, err };
}

/** Starts the image's CMD and waits for its "listening on" line. */
function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  const child = spawnArgv(dockerfileCommand('CMD'), env);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 60_000);
    child.stderr!.on('data', (chunk) => (output += String(chunk)));
    child.stdout!.on('data', (chunk) => {
      output += String(chunk);
      const match = /listening on http:\/\/localhost:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before listening:\n${output}`)));
  });
}

/** The image's HEALTHCHECK command, with the container's PORT. */
const healthcheck = (port: number) => runToExit(dockerfileCommand('HEALTHCHECK'), { PATH: process.env.PATH ?? '', PORT: String(port) });

/** `workspace-api ...` by name, as `docker compose exec api workspace-api ...` runs it. */
const cli = (...args: string[]) => runToExit(['workspace-api', ...args], productionEnv({ PORT: undefined, HOST: undefined }));

beforeAll(() => {
  ensureBuilt();
  image = imageLayout();
}, 120_000);
afterAll(() => image?.remove());

describe('node dist/src/index.js in production (the image CMD)', () => {
  const db = createTestDb(1);
  let server: { child: ChildProcess; port: number };

  beforeAll(async () => {
    server = await startServer(productionEnv());
  }, 90_000);
  afterAll(async () => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    await db.destroy();
  });

  it('is what the Dockerfile runs, the same command as npm run start:prod, with the heap growth the benchmarks measured', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(dockerfileCommand('CMD')).toEqual(scripts['start:prod']!.split(' '));
    expect(dockerfileCommand('CMD')).toEqual(['node', '--heap-growing-percent=50', 'dist/src/index.js']);
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^ENV NODE_ENV=production\b/m);
  });

  it('answers GET /api/v1/leads without a key with 401 in the REST error body', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/leads`);

    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  it('shares its database with the built CLI: a workspace and key made by `workspace-api` are served', async () => {
    const name = `Built ${Date.now()}`;
    const org = await cli('org', 'create', '--name', name, '--tier', 'BUSINESS', '--json');
    expect(org).toMatchObject({ code: 0, err: '' });
    const { id } = JSON.parse(org.out) as { id: string };
    expect(id).toMatch(/^org_/);
    expect(await db('organisations').where({ id }).first()).toMatchObject({ name, tier: 'BUSINESS' });

    const issued = await cli('key', 'create', '--org', id, '--name', 'built', '--scopes', 'leads.read', '--json');
    expect(issued).toMatchObject({ code: 0, err: '' });
    const { key } = JSON.parse(issued.out) as { key: string };
    const res = await fetch(`http://127.0.0.1:${server.port}/api/v1/leads`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { pagination: { total: number } }).pagination.total).toBe(0);
  });

  it('serves the developer page that npm run build bundled, under its CSP, with no esbuild and no TypeScript sources at run time', async () => {
    expect(existsSync(join(image.app, 'node_modules', 'esbuild'))).toBe(false);
    expect(existsSync(join(image.app, 'dist/src/http/developer-page/browser'))).toBe(false);
    const get = (path: string) => fetch(`http://127.0.0.1:${server.port}${path}`);
    const [page, script, styles] = await Promise.all([get('/developer'), get('/developer/assets/developer.js'), get('/developer/assets/developer.css')]);
    for (const [res, type] of [[page, /^text\/html/], [script, /^application\/javascript/], [styles, /^text\/css/]] as const) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(type);
      expect(res.headers.get('content-security-policy')).toBe(DEVELOPER_CSP);
    }
    const html = await page.text();
    expect(html).toContain('<script src="/developer/assets/developer.js" defer></script>');
    expect(html).toContain('<link rel="stylesheet" href="/developer/assets/developer.css">');
    // The built files are the ones the sources make: what the browser test drives is what the image serves.
    const fromSource = developerAssetsFromSource();
    expect(html).toBe(fromSource.html);
    expect(await styles.text()).toBe(fromSource.styles);
    expect(await script.text()).toBe(fromSource.script);
  });

  it('passes the image HEALTHCHECK', async () => {
    expect((await healthcheck(server.port)).code).toBe(0);
  });

  it('exits 0 on SIGTERM (the image STOPSIGNAL)', async () => {
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/^STOPSIGNAL SIGTERM$/m);
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  }, 30_000);
});

describe('node dist/src/index.js refusing to start in production', () => {
  it.each([
    ['without DATABASE_URL (it would use the embedded database)', 'DATABASE_URL', { DATABASE_URL: undefined }],
    ['without SESSION_SECRET', 'SESSION_SECRET', { SESSION_SECRET: undefined }],
    ['without TOKEN_SECRET', 'TOKEN_SECRET', { TOKEN_SECRET: undefined }],
  ])('exits 1 %s, printing one stderr line naming %s and starting nothing', async (_label, variable, overrides) => {
    const embeddedDir = join(mkdtempSync(join(tmpdir(), 'wsapi-built-')), 'data');
    try {
      const run = await runToExit(dockerfileCommand('CMD'), productionEnv({ ...overrides, EMBEDDED_DB_DIR: embeddedDir }));

      expect(run.code).toBe(1);
      expect(run.err.trimEnd().split('\n')).toEqual([expect.stringMatching(new RegExp(`^Invalid environment variable ${variable}: `))]);
      expect(run.out).not.toMatch(/listening/);
      expect(existsSync(embeddedDir)).toBe(false);
    } finally {
      rmSync(join(embeddedDir, '..'), { recursive: true, force: true });
    }
  }, 30_000);
});

describe('the image HEALTHCHECK command', () => {
  let stub: Server;
  let healthStatus = 200;
  beforeAll(async () => {
    // A stand-in for the service, so the check's own logic (PORT, URL, exit codes) is what is tested.
    stub = createServer((req, res) => res.writeHead(req.url === '/healthz' ? healthStatus : 404).end()).listen(0, '127.0.0.1');
    await once(stub, 'listening');
  });
  afterAll(() => stub.close());

  const stubPort = () => (stub.address() as { port: number }).port;

  it('exits 0 when GET /healthz on $PORT answers 200', async () => {
    healthStatus = 200;
    expect((await healthcheck(stubPort())).code).toBe(0);
  });

  it('exits 1 when /healthz answers 503', async () => {
    healthStatus = 503;
    expect((await healthcheck(stubPort())).code).toBe(1);
  });

  it('exits 1 when nothing listens on $PORT', async () => {
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    closed.close();
    await once(closed, 'close');
    expect((await healthcheck(port)).code).toBe(1);
  });
});
