import { Command, CommanderError } from 'commander';
import type { AnyCommand, CliIo, Values } from './command';
import { COMMANDS } from './commands';

export const PROGRAM = 'workspace-api';

/** What the first word of a two-word command stands for, in `workspace-api org --help`. */
const GROUPS: Record<string, string> = {
  org: 'workspaces: create, list, show',
  member: 'a workspace\'s members: create, list, and sessions for the developer endpoints',
  key: 'API keys: create, list, revoke',
  seed: 'demo and benchmark data',
  indexes: 'the indexes a bulk load drops',
};

export type CommandLine = { command: AnyCommand; values: Values; operands: string[] } | { exitCode: number };

/**
 * Reads argv with commander: answers the command, its option values and its operands, or the
 * exit code when there is nothing to run (help printed: 0; bad usage, said on stderr: 2).
 * A program is built for each call, as commander keeps the values it parsed on its commands.
 */
export function parseCommandLine(argv: string[], io: CliIo): CommandLine {
  let chosen: CommandLine | undefined;
  const program = buildProgram(io, (command, leaf) => {
    const values: Values = {};
    for (const option of leaf.options) values[option.name()] = leaf.getOptionValue(option.attributeName()) as string | boolean | undefined;
    chosen = { command, values, operands: leaf.args };
  });
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    return { exitCode: usageFailure(err, argv, io) };
  }
  if (chosen) return chosen;
  io.err.write(`${generalUsage()}\n`);
  return { exitCode: 2 };
}

function usageFailure(err: CommanderError, argv: string[], io: CliIo): number {
  if (err.code === 'commander.helpDisplayed' || (err.code === 'commander.help' && err.exitCode === 0)) return 0;
  const firstOption = argv.findIndex((arg) => arg.startsWith('-'));
  const words = firstOption === -1 ? argv : argv.slice(0, firstOption);
  const group = words.length === 1 ? GROUPS[words[0]!] : undefined;
  if (err.code === 'commander.help' && words.length === 0) {
    io.err.write(`${generalUsage()}\n`);
  } else if (err.code === 'commander.help' && group) {
    const names = Object.keys(COMMANDS).filter((name) => name.startsWith(`${words[0]} `));
    io.err.write(`${words[0]} needs one more word: ${names.join(', ')}\n\n${generalUsage()}\n`);
  } else if (err.code === 'commander.unknownCommand') {
    io.err.write(`unknown command: ${words.join(' ')}\n\n${generalUsage()}\n`);
  } else {
    const command = COMMANDS[words.slice(0, 2).join(' ')] ?? COMMANDS[words[0] ?? ''];
    io.err.write(`${err.message.replace(/^error: /, '')}\n\n${command ? usageOf(command) : generalUsage()}\n`);
  }
  return 2;
}

/** The commander program for every command in COMMANDS; `onChosen` receives the one argv names. */
export function buildProgram(io: CliIo, onChosen: (command: AnyCommand, leaf: Command) => void = () => {}): Command {
  const program = new Command(PROGRAM)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.out.write(text),
      // Commander's own messages are replaced by ours (usageFailure), which name the command.
      writeErr: () => {},
      outputError: () => {},
      // Help is plain text: never colour, whatever the terminal.
      getOutHasColors: () => false,
      getErrHasColors: () => false,
      getOutHelpWidth: () => 100,
      getErrHelpWidth: () => 100,
    });
  const groups = new Map<string, Command>();
  for (const command of Object.values(COMMANDS)) {
    const [first, second] = command.name.split(' ') as [string, string | undefined];
    let parent = program;
    if (second !== undefined) {
      parent = groups.get(first) ?? program.command(first).description(GROUPS[first] ?? '').usage('<command> [options]').helpCommand(false).helpOption('-h, --help', 'show this help');
      groups.set(first, parent);
    }
    const leaf = parent
      .command(second ?? first)
      .description(command.summary)
      .usage(synopsisOf(command))
      .allowExcessArguments(true)
      .helpOption('-h, --help', 'show this help');
    if (command.operand) leaf.argument(`[${command.operand.name}]`, command.operand.description);
    for (const option of command.options) leaf.option(option.flags, option.required ? `${option.description} (required)` : option.description);
    leaf.option('--json', 'print the result as JSON on stdout instead of text');
    leaf.addHelpText('after', `\nExamples:\n${command.examples.map((example) => `  ${PROGRAM} ${example}`).join('\n')}\n`);
    leaf.action((...args: unknown[]) => onChosen(command, args.at(-1) as Command));
  }
  // The general usage lists every command with its options; commander's would list only the first words.
  program.configureHelp({ formatHelp: () => `${generalUsage()}\n` }).helpOption('-h, --help', 'show this help');
  return program;
}

/** `--org ORG --scopes LIST [--member MEMBER] ... [--json]`: the operand and required options first, then the optional ones. */
function synopsisOf(command: AnyCommand, options: { json: boolean } = { json: true }): string {
  const flag = (flags: string) => flags.replace(/ <(.+)>$/, ' $1');
  return [
    ...(command.operand ? [command.operand.name] : []),
    ...command.options.filter((o) => o.required).map((o) => flag(o.flags)),
    ...command.options.filter((o) => !o.required).map((o) => `[${flag(o.flags)}]`),
    ...(options.json ? ['[--json]'] : []),
  ].join(' ');
}

/** The command's one-line usage and where to read more, printed after a mistake in it. */
export function usageOf(command: AnyCommand): string {
  return `usage: ${PROGRAM} ${command.name} ${synopsisOf(command)}\nRun \`${PROGRAM} ${command.name} --help\` for what each option expects, and examples.`;
}

export function generalUsage(): string {
  // --json is said once, in the first line, rather than on every command.
  const commands = Object.values(COMMANDS).map((command) => `  ${[command.name, synopsisOf(command, { json: false })].join(' ').trim()}\n      ${command.summary}`);
  return [
    `usage: ${PROGRAM} <command> [options] [--json]`,
    '',
    'commands:',
    ...commands,
    '',
    `Run \`${PROGRAM} <command> --help\` (e.g. \`${PROGRAM} key create --help\`) for what a command's options expect, and examples.`,
    'With --json a command prints its result as JSON on stdout. Exit codes: 0 done, 1 failed, 2 bad usage.',
    'Uses DATABASE_URL when set, else the embedded database in EMBEDDED_DB_DIR (default ./data).',
  ].join('\n');
}
