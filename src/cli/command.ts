import type { Db } from '../db/knex';
import type { Config } from '../config';

/** Where the CLI writes; `isTTY` is true only for a terminal (process.stdout and process.stderr carry it). */
export interface CliStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface CliIo {
  out: CliStream;
  err: CliStream;
}

/** Bad usage: the message is printed with the usage and the CLI exits 2. */
export class UsageError extends Error {}

/** Option values by flag name (`expires-at`, not commander's `expiresAt`), so messages can name the flag. */
export type Values = Record<string, string | boolean | undefined>;

export interface CliOption {
  /** As commander reads it: `--org <ORG>` takes a value, `--keep-indexes` is a switch. */
  flags: string;
  /** What the value is, for the command's --help. */
  description: string;
  /**
   * Shown without brackets in the usage. The command's `parse` checks it itself (not commander's
   * requiredOption), so the message stays `missing --org` whichever way the option is left out.
   */
  required?: boolean;
}

export interface RunContext {
  config: Config;
  io: CliIo;
}

export interface CliCommand<Args, Result> {
  /** The words that name it: `key create`. */
  name: string;
  /** One line, for the general usage and the command's --help. */
  summary: string;
  /** A positional operand (`key revoke KEY_ID`); `parse` checks how many were given. */
  operand?: { name: string; description: string };
  options: CliOption[];
  /** Invocations without the program name; the help tests parse each one. */
  examples: [string, ...string[]];
  parse(values: Values, operands: string[]): Args;
  run(db: Db, args: Args, context: RunContext): Promise<Result>;
  /** What is printed without --json. */
  describe(result: Result): string;
}

export type AnyCommand = CliCommand<unknown, unknown>;

export function defineCommand<Args, Result>(command: CliCommand<Args, Result>): AnyCommand {
  return command as AnyCommand;
}

export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`missing --${name}`);
  return value;
}

export function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function list(value: string | undefined): string[] {
  return value ? value.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

export function noOperands(operands: string[]): void {
  if (operands.length > 0) throw new UsageError(`unexpected argument: ${operands[0]}`);
}

export function oneOperand(operands: string[], name: string): string {
  if (operands.length !== 1) throw new UsageError(`give exactly one ${name}`);
  return operands[0]!;
}
