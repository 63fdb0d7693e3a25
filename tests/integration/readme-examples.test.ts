import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { stopEmbeddedPostgresIn } from '../helpers/server-process';

/**
 * The README's examples run as written, against the service started as a newcomer starts it:
 * `npm start`'s entry on the embedded database, in a fresh data directory, with no NODE_ENV and no
 * DATABASE_URL. Each ```bash block that calls curl runs in a directory whose `data/` is the
 * service's EMBEDDED_DB_DIR (so `data/demo-key.txt` is its key), with PORT set to its port; each
 * ```ts block is type-checked with the repository's tsconfig, then run with tsx.
 */

const ROOT = join(__dirname, '..', '..');

interface Block {
  lang: string;
  code: string;
  /** The line of README.md the block's fence opens on. */
  line: number;
}

function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let open: { fence: string; lang: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^(`{3,}|~{3,})\s*([\w-]*)/.exec(text);
    if (!open) {
      if (marker) open = { fence: marker[1]!, lang: marker[2]!, line: index + 1, lines: [] };
      return;
    }
    if (text.trim() === open.fence) {
      blocks.push({ lang: open.lang, code: `${open.lines.join('\n')}\n`, line: open.line });
      open = undefined;
    } else {
      open.lines.push(text);
    }
  });
  return blocks;
}

const blocks = fencedBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
const curlBlocks = blocks.filter((b) => b.lang === 'bash' && /\bcurl\b/.test(b.code));
const tsBlocks = blocks.filter((b) => b.lang === 'ts' || b.lang === 'typescript');

/** Each curl command of a block, its continuation lines joined. */
function curlCommands(code: string): string[] {
  return code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .flatMap((line) => line.match(/\bcurl\b[^|;]*/g) ?? []);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Exit code 0; on a failure the diff shows everything the command printed. */
function expectSuccess(ran: Ran): void {
  const printed = `${ran.stdout}\n${ran.stderr}`;
  expect({ code: ran.code, printed }).toEqual({ code: 0, printed: ran.code === 0 ? printed : '' });
}

/** What a newcomer's shell would hand `npm start`: no database, mode or test settings. */
function newcomerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'USER']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return { ...env, ...extra };
}

let work: string;
let port: number;
let service: ChildProcess | undefined;
let serviceExited: Promise<number | null> | undefined;
const serviceOutput: string[] = [];

async function startService(): Promise<void> {
  port = await freePort();
  // Its own process group, so stopping it also stops whatever database process it started.
  service = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
    cwd: ROOT,
    detached: true,
    // HOST only keeps it off other interfaces during the test; everything else is the defaults.
    env: newcomerEnv({ EMBEDDED_DB_DIR: join(work, 'data'), PORT: String(port), HOST: '127.0.0.1' }),
  });
  service.stdout!.on('data', (chunk) => serviceOutput.push(String(chunk)));
  service.stderr!.on('data', (chunk) => serviceOutput.push(String(chunk)));
  serviceExited = new Promise((resolve) => service!.on('exit', (code) => resolve(code)));
  let exited = false;
  void serviceExited.then(() => (exited = true));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the service exited before answering:\n${serviceOutput.join('')}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((res) => res.ok, () => false);
    if (ready && existsSync(join(work, 'data', 'demo-key.txt'))) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the service did not answer within 120 s:\n${serviceOutput.join('')}`);
}

async function stopService(): Promise<void> {
  if (!service?.pid || !serviceExited) return;
  const group = -service.pid;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(group, name);
    } catch {
      // the group is gone already
    }
  };
  signal('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    serviceExited.then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 15_000))),
  ]);
  clearTimeout(timer);
  // Whatever the service left behind in its group (or the service itself, if it hung) is killed.
  signal('SIGKILL');
  if (!stopped) await serviceExited;
  await stopEmbeddedPostgresIn(join(work, 'data'));
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'wsapi-readme-'));
  // As a clone's folder is: readable by others, so a database server running as its own user
  // (the embedded PostgreSQL does when started as root) can reach the data directory inside.
  chmodSync(work, 0o755);
  await startService();
}, 150_000);

afterAll(async () => {
  try {
    await stopService();
  } finally {
    if (work) rmSync(work, { recursive: true, force: true });
  }
}, 30_000);

describe('README.md curl examples', () => {
  it('has bash blocks calling curl, each curl failing on an answer other than 2xx (-f)', () => {
    expect(curlBlocks.length).toBeGreaterThan(0);
    for (const block of curlBlocks) {
      for (const command of curlCommands(block.code)) {
        expect({ line: block.line, command, fails: /\s-[a-zA-Z]*f[a-zA-Z]*\s|\s--fail\b/.test(`${command} `) }).toEqual({ line: block.line, command, fails: true });
      }
    }
  });

  it.each(curlBlocks.map((b) => [b.line, b] as const))('runs the bash block at README.md:%i as pasted, every curl answered 2xx', async (_line, block) => {
    // curl as the block calls it, also reporting each answer's status on a line of its own.
    const realCurl = spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
    expect(realCurl).not.toBe('');
    const bin = join(work, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'curl'), `#!/bin/sh\nexec "${realCurl}" "$@" --write-out '%{stderr}readme-curl-status %{http_code}\\n'\n`);
    chmodSync(join(bin, 'curl'), 0o755);
    const script = join(work, `block-${block.line}.sh`);
    writeFileSync(script, block.code);

    const ran = await run('bash', ['-e', '-o', 'pipefail', script], {
      cwd: work,
      env: newcomerEnv({ PATH: `${bin}:${process.env.PATH ?? ''}`, PORT: String(port) }),
      timeoutMs: 30_000,
    });

    const statuses = [...ran.stderr.matchAll(/^readme-curl-status (\d+)$/gm)].map((m) => Number(m[1]));
    expectSuccess(ran);
    expect(statuses.length).toBeGreaterThanOrEqual(curlCommands(block.code).length);
    expect(statuses.filter((status) => status < 200 || status > 299)).toEqual([]);
  }, 40_000);

  it('stored the lead the README creates', async () => {
    const key = readFileSync(join(work, 'data', 'demo-key.txt'), 'utf8').trim();
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/leads?search=Lovelace`, { headers: { Authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { data: { name: string; phones: string[]; emails: string[] }[] };
    expect(body.data).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Ada Lovelace', phones: ['+442079460018'], emails: ['ada@example.com'] })]));
  });
});

describe('README.md TypeScript examples', () => {
  const files: string[] = [];
  let tsconfig: string;

  beforeAll(() => {
    // Where the README saves them, `.tmp/<name>.ts` (git-ignored), so `@workspace-api/client` resolves through tsconfig.json's `paths` as
    // written; names of this run's own, so parallel runs do not collide.
    const examplesDir = join(ROOT, '.tmp');
    mkdirSync(examplesDir, { recursive: true });
    const prefix = `readme-example-${process.pid}-${Date.now()}`;
    tsBlocks.forEach((block) => {
      const file = join(examplesDir, `${prefix}-${block.line}.ts`);
      writeFileSync(file, block.code);
      files.push(file);
    });
    tsconfig = join(examplesDir, `${prefix}.tsconfig.json`);
    writeFileSync(tsconfig, JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { noEmit: true }, files, include: [] }, null, 2));
  });

  afterAll(() => {
    for (const file of [...files, tsconfig]) rmSync(file, { force: true });
  });

  it('has TypeScript examples', () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(2);
  });

  it("type-checks them with the repository's tsconfig", async () => {
    const ran = await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig], {
      cwd: ROOT,
      env: process.env,
      timeoutMs: 120_000,
    });
    // Only the examples' own diagnostics count here: an error elsewhere in the repository is the
    // type-check step of `npm test`'s to report, and would fail every example otherwise.
    const output = ran.stdout + ran.stderr;
    const diagnostics = output.split('\n').filter((line) => /error TS\d+/.test(line));
    const elsewhere = (line: string) => /^\S+\.ts\(\d+,\d+\): error/.test(line) && !files.some((file) => line.startsWith(relative(ROOT, file)));
    expect(diagnostics.filter((line) => !elsewhere(line))).toEqual([]);
    expect(ran.code === 0 || diagnostics.length > 0).toBe(true);
  }, 130_000);

  it.each(tsBlocks.map((b, i) => [b.line, i] as const))('runs the example at README.md:%i with tsx against the service', async (_line, index) => {
    // As `npx tsx .tmp/<name>.ts` in the repository folder, but where `data/` is the service's.
    const ran = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), [files[index]!], {
      cwd: work,
      env: newcomerEnv({ PORT: String(port), TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json') }),
      timeoutMs: 60_000,
    });
    expectSuccess(ran);
    expect(ran.stdout).toMatch(/lead_\w+/);
  }, 70_000);
});
