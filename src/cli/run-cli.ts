import { parseArgs } from 'node:util';
import { AppError } from '../errors/app-error';
import { ConfigError, loadConfig } from '../config';
import { connectDatabase, type Database } from '../db/connect';
import { COMMANDS, UsageError, type CliIo } from './commands';

const USAGE = `usage: workspace-api <command> [options] [--json]

commands:
  migrate
  org create --name N --tier FREE|PRO|BUSINESS [--features DEVELOPER_API,...] [--region GB]
  member create --org ORG --name N --email E [--permissions DEVELOPER,...]
  member token --member MEMBER             (a member session for the developer endpoints)
  key create --org ORG [--member MEMBER] [--name N] --scopes leads.read,... [--expires-at ISO]
  key list --org ORG
  key revoke KEY_ID
  seed demo
  seed bulk --org ORG --leads N [--rebuild-indexes | --keep-indexes]
                                           (realistic leads for benchmarks; progress on stderr;
                                           drops the tables' secondary indexes for the load and
                                           builds them after when no other workspace has rows in
                                           them; --rebuild-indexes always does, --keep-indexes
                                           never does)
  indexes rebuild                          (builds the indexes an interrupted load left dropped)

Uses DATABASE_URL when set, else the embedded database in EMBEDDED_DB_DIR (default ./data).`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  tier: { type: 'string' },
  features: { type: 'string' },
  region: { type: 'string' },
  org: { type: 'string' },
  email: { type: 'string' },
  permissions: { type: 'string' },
  member: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  leads: { type: 'string' },
  'rebuild-indexes': { type: 'boolean' },
  'keep-indexes': { type: 'boolean' },
} as const;

/** The operators' tool. Answers the exit code: 0 done, 1 failed, 2 bad usage. */
export async function runCli(argv: string[], io: CliIo & { env: NodeJS.ProcessEnv }): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    io.err.write(`${(err as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.out : io.err).write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const commandName = positionals.slice(0, 2).join(' ');
  const command = COMMANDS[positionals[0]!] ?? COMMANDS[commandName];
  if (!command) {
    io.err.write(`unknown command: ${positionals.join(' ')}\n\n${USAGE}\n`);
    return 2;
  }
  let database: Database | undefined;
  try {
    const args = command.parse(values, positionals.slice(command.words));
    const config = loadConfig(io.env);
    database = await connectDatabase({ url: config.DATABASE_URL, embeddedDir: config.EMBEDDED_DB_DIR, poolMax: 2, migrate: command !== COMMANDS.migrate });
    const result = await command.run(database.db, args, config);
    io.out.write(values.json ? `${JSON.stringify(result)}\n` : `${command.describe(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err.write(`${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    const message = err instanceof AppError || err instanceof ConfigError ? err.message : `failed: ${(err as Error).message}`;
    io.err.write(`${message}\n`);
    return 1;
  } finally {
    await database?.close();
  }
}
