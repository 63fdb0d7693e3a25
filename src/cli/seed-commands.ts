import { seedDemo } from '../../seeds/01_demo_workspaces';
import { defineCommand, noOperands, required, UsageError } from './command';
import { seedBulk } from './seed-bulk';
import { seedBulkReporter } from './seed-progress';

export const seedDemoCommand = defineCommand({
  name: 'seed demo',
  summary: 'create a demo BUSINESS workspace with 300 leads and a FREE one, each with an every-scope key',
  options: [],
  examples: ['seed demo', 'seed demo --json'],
  parse: (_values, operands) => noOperands(operands),
  run: (db) => seedDemo(db),
  describe: (r) => `demo workspace ${r.orgId}\ndemo key (every scope): ${r.key}\nlower-tier workspace ${r.lowerTierOrgId}, key: ${r.lowerTierKey}`,
});

export const seedBulkCommand = defineCommand({
  name: 'seed bulk',
  summary: 'load realistic leads into a workspace for benchmarks (phases, progress and ETA on stderr)',
  options: [
    { flags: '--org <ORG>', description: 'the workspace id (org_...; see `org list`)', required: true },
    { flags: '--leads <N>', description: 'how many leads, 1 to 10000000', required: true },
    {
      flags: '--rebuild-indexes',
      description: 'drop the tables\' secondary indexes for the load and build them after it, even when other workspaces have rows (their lists and searches go without those indexes meanwhile). Default: only when no other workspace has rows',
    },
    { flags: '--keep-indexes', description: 'never drop indexes: every row goes through them (slower for large loads)' },
  ],
  examples: ['seed bulk --org ORG --leads 100000', 'seed bulk --org ORG --leads 1000000 --rebuild-indexes'],
  parse(values, operands) {
    noOperands(operands);
    const leads = Number(required(values, 'leads'));
    if (!Number.isInteger(leads) || leads < 1 || leads > 10_000_000) throw new UsageError('--leads must be a whole number from 1 to 10000000');
    if (values['rebuild-indexes'] && values['keep-indexes']) throw new UsageError('give --rebuild-indexes or --keep-indexes, not both');
    const rebuildIndexes: boolean | 'auto' = values['rebuild-indexes'] ? true : values['keep-indexes'] ? false : 'auto';
    return { orgId: required(values, 'org'), leads, rebuildIndexes, json: values.json === true };
  },
  // The phases go to stderr, and only for people: --json output stays one line on stdout.
  async run(db, args, { io }) {
    const reporter = args.json ? undefined : seedBulkReporter(io.err, { tty: io.err.isTTY === true });
    try {
      return await seedBulk(db, { orgId: args.orgId, leads: args.leads, rebuildIndexes: args.rebuildIndexes, onProgress: reporter?.onProgress, onPhase: reporter?.onPhase });
    } finally {
      reporter?.stop();
    }
  },
  describe: (r) => `loaded ${r.leads} leads into ${r.orgId} (${r.members} members) in ${r.seconds}s (${r.loadSeconds}s to the last batch, then ${r.indexesRebuilt ? `${r.indexesRebuilt} indexes built in ${r.indexesSeconds}s, ` : ''}counters folded and tables vacuumed in ${r.vacuumSeconds}s)`,
});
