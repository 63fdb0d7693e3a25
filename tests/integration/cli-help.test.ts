import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { buildProgram, parseCommandLine } from '../../src/cli/program';
import { cliProcess, cliWithEnv } from '../helpers/cli-harness';

// Nothing listens here: a command that opened the database would fail (exit 1), so exit 0 shows help never opens it.
const NO_DATABASE = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nowhere' };
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[/;

/** Every command commander can run, by its words, read from the program itself: a new command is walked too. */
function commandPaths(): string[] {
  const leaves = (command: Command, prefix: string[]): string[] =>
    command.commands.length === 0
      ? [[...prefix, command.name()].join(' ')]
      : command.commands.flatMap((sub) => leaves(sub, [...prefix, command.name()]));
  const noIo = { out: { write: () => undefined }, err: { write: () => undefined } };
  return buildProgram(noIo).commands.flatMap((command) => leaves(command, []));
}

/** `a "b c" d` as a shell splits it. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

const paths = commandPaths();

describe('cli per-command --help', () => {
  it('finds the commands to walk, the new ones among them', () => {
    expect(paths).toEqual(expect.arrayContaining(['migrate', 'org create', 'org list', 'org show', 'member list', 'key create', 'seed bulk', 'indexes rebuild']));
  });

  it.each(paths)('`%s --help` prints its usage, description, options and examples on stdout, exit 0, without the database', async (path) => {
    const run = await cliWithEnv(NO_DATABASE, ...path.split(' '), '--help');

    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    const [usage, description, ...rest] = run.out.split('\n\n');
    expect(usage).toMatch(new RegExp(`^Usage: workspace-api ${path}( |$)`));
    expect(usage).toMatch(/\[--json\]$/);
    expect(description!.trim()).toMatch(/^\S.{10,}$/);
    const options = rest.find((section) => section.startsWith('Options:'))!;
    // Every option, --json and --help included, says what it expects (a long description wraps, indented).
    for (const line of options.split('\n').slice(1)) expect(line).toMatch(/^( {2}(-h, )?--[a-z-]+( <[A-Z_]+>)? {2,}| {6,})\S/);
    expect(options).toMatch(/--json {2,}print the result as JSON/);
    const examples = rest.find((section) => section.startsWith('Examples:'))!;
    const invocations = examples.trim().split('\n').slice(1).map((line) => line.trim());
    expect(invocations.length).toBeGreaterThan(0);
    for (const invocation of invocations) expect(invocation.startsWith(`workspace-api ${path}`)).toBe(true);
    expect(run.out).not.toMatch(ANSI);
  });

  it.each(paths)('every example in `%s --help` is a valid invocation of it', async (path) => {
    const help = (await cliWithEnv(NO_DATABASE, ...path.split(' '), '--help')).out;
    const invocations = help.split('Examples:\n')[1]!.trim().split('\n').map((line) => words(line.trim()).slice(1));
    let said = '';
    const io = { out: { write: () => undefined }, err: { write: (text: string) => void (said += text) } };

    for (const argv of invocations) {
      const parsed = parseCommandLine(argv, io);
      if ('exitCode' in parsed) throw new Error(`${argv.join(' ')}: exit ${parsed.exitCode}: ${said}`);
      expect(parsed.command.name).toBe(path);
      expect(() => parsed.command.parse(parsed.values, parsed.operands)).not.toThrow();
    }
  });

  it('is the same with -h, and with --help after other options', async () => {
    const long = await cliWithEnv(NO_DATABASE, 'key', 'create', '--help');
    const short = await cliWithEnv(NO_DATABASE, 'key', 'create', '-h');
    const late = await cliWithEnv(NO_DATABASE, 'key', 'create', '--org', 'org_x', '--help');

    expect(long.out).toMatch(/^Usage: workspace-api key create /);
    expect(short).toEqual(long);
    expect(late).toEqual(long);
  });
});

describe('cli general --help', () => {
  it('lists every command with a description, and says how to get a command\'s help', async () => {
    const run = await cliWithEnv(NO_DATABASE, '--help');

    expect(run.code).toBe(0);
    for (const path of paths) expect(run.out).toMatch(new RegExp(`\\n {2}${path}( .*)?\\n {6}\\S`));
    expect(run.out).toMatch(/Run `workspace-api <command> --help`/);
  });

  it('names the commands of a group when its second word is missing: exit 2', async () => {
    const run = await cliWithEnv(NO_DATABASE, 'org');

    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toMatch(/^org needs one more word: org create, org list, org show\n/);
  });
});

describe('the workspace-api binary\'s help', () => {
  it('prints `key create --help` through pipes with no colour codes, even with FORCE_COLOR set, and exits 0 without the database', async () => {
    const run = await cliProcess({ ...NO_DATABASE, FORCE_COLOR: '1' }, 'key', 'create', '--help');

    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Usage: workspace-api key create --org ORG --scopes LIST /);
    expect(run.out).toMatch(/\nExamples:\n {2}workspace-api key create --org /);
    expect(run.out).not.toMatch(ANSI);
    expect(run.err).not.toMatch(ANSI);
  }, 90_000);

  it('exits 0 without a stack trace when the reader of its output has gone (`workspace-api --help | head -1`)', async () => {
    const child = spawn('npx', ['tsx', 'src/cli/main.ts', '--help'], { cwd: resolve(__dirname, '../..'), env: { ...process.env, ...NO_DATABASE } });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.destroy();

    const code = await new Promise<number | null>((done) => child.on('close', done));

    expect(err).toBe('');
    expect(code).toBe(0);
  }, 90_000);
});
