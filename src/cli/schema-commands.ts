import { migrateLatestExclusively } from '../db/migrator';
import * as deferredIndexesQueries from '../db/deferred-indexes';
import { announceCacheChange } from '../db/cache-changes';
import { defineCommand, noOperands } from './command';

export const migrate = defineCommand({
  name: 'migrate',
  summary: 'apply the database migrations not applied yet (every other command does so first)',
  options: [],
  examples: ['migrate', 'migrate --json'],
  parse: (_values, operands) => noOperands(operands),
  // Under the lock the service's own start takes: several at once wait for each other.
  run: async (db) => ({ applied: await migrateLatestExclusively(db) }),
  describe: (r) => (r.applied.length ? `applied: ${r.applied.join(', ')}` : 'schema is up to date'),
});

export const indexesRebuild = defineCommand({
  name: 'indexes rebuild',
  summary: 'build the indexes an interrupted `seed bulk` left dropped',
  options: [],
  examples: ['indexes rebuild'],
  parse: (_values, operands) => noOperands(operands),
  run: async (db) => ({ rebuilt: await deferredIndexesQueries.rebuildDeferredIndexes(db) }),
  describe: (r) => (r.rebuilt.length ? `built: ${r.rebuilt.join(', ')}` : 'no index was waiting to be built'),
});

export const cacheFlush = defineCommand({
  name: 'cache flush',
  summary: 'make every running instance forget the API keys, members and workspaces it cached',
  options: [],
  examples: ['cache flush'],
  parse: (_values, operands) => noOperands(operands),
  // Changes made through the API or this CLI are announced as they commit; one made by hand in SQL
  // is not, and would otherwise bite only when the cache entry expires (KEY_CACHE_LIVE_TTL_MS).
  run: async (db) => {
    await announceCacheChange(db, { kind: 'all' });
    return { flushed: true as const };
  },
  describe: () => 'every running instance dropped its cached keys, members and workspaces',
});
