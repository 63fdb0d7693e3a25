import type { AnyCommand } from './command';
import { migrate, indexesRebuild, cacheFlush } from './schema-commands';
import { orgCreate, orgList, orgShow } from './org-commands';
import { memberCreate, memberList, memberToken } from './member-commands';
import { keyCreate, keyList, keyRevoke, keyRoll } from './key-commands';
import { seedDemoCommand, seedBulkCommand } from './seed-commands';
import { importCommand } from './import-command';
import { exportCommand } from './export-command';

export { UsageError, type CliIo } from './command';

/** Every command by its words, in the order the usage lists them. */
export const COMMANDS: Record<string, AnyCommand> = Object.fromEntries(
  [migrate, orgCreate, orgList, orgShow, memberCreate, memberList, memberToken, keyCreate, keyList, keyRevoke, keyRoll, importCommand, exportCommand, seedDemoCommand, seedBulkCommand, indexesRebuild, cacheFlush]
    .map((command) => [command.name, command]),
);
