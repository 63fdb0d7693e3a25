import { migrateLatest } from '../db/migrator';
import * as deferredIndexesQueries from '../db/queries/deferred-indexes.queries';
import { defineCommand, noOperands } from './command';

export const migrate = defineCommand({
  name: 'migrate',
  summary: 'apply the database migrations not applied yet (every other command does so first)',
  options: [],
  examples: ['migrate', 'migrate --json'],
  parse: (_values, operands) => noOperands(operands),
  run: async (db) => ({ applied: await migrateLatest(db) }),
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
