import { AppError } from '../errors/app-error';
import { ConfigError, loadConfig } from '../config';
import { connectDatabase, type Database } from '../db/connect';
import { COMMANDS, UsageError, type CliIo } from './commands';
import { parseCommandLine, usageOf } from './program';

/** The operators' tool. Answers the exit code: 0 done, 1 failed, 2 bad usage. */
export async function runCli(argv: string[], io: CliIo & { env: NodeJS.ProcessEnv }): Promise<number> {
  const parsed = parseCommandLine(argv, io);
  if ('exitCode' in parsed) return parsed.exitCode;
  const { command, values, operands } = parsed;
  let database: Database | undefined;
  try {
    const args = command.parse(values, operands);
    const config = loadConfig(io.env);
    // A tool on the embedded database: while `npm start` runs, its writes go through that server.
    const embeddedRole = 'tool';
    database = await connectDatabase({ url: config.DATABASE_URL, embeddedDir: config.EMBEDDED_DB_DIR, embeddedRole, poolMax: 2, migrate: command !== COMMANDS.migrate });
    const result = await command.run(database.db, args, { config, io });
    const text = values.json ? JSON.stringify(result) : command.describe(result);
    // A command whose output is its data (an export to stdout) describes nothing more.
    if (text !== '') io.out.write(`${text}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err.write(`${err.message}\n\n${usageOf(command)}\n`);
      return 2;
    }
    const message = err instanceof AppError || err instanceof ConfigError ? err.message : `failed: ${(err as Error).message}`;
    io.err.write(`${message}\n`);
    return 1;
  } finally {
    await database?.close();
  }
}
