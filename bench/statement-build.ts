import knex from 'knex';
import { performance } from 'node:perf_hooks';
import * as leadsQueries from '../src/db/queries/leads.queries';
import { allowNamedStatements, prepared } from '../src/db/prepared-statements';
import { median } from './lib/report';

// `npx tsx bench/statement-build.ts [--rounds 5]`: Node's CPU to make the leads list's page
// statement ready for the driver, without a database: built anew by knex on every call (as before
// src/db/compiled-statements.ts: built, compiled by `prepared` to name it, and compiled again by
// knex's runner), against compiled once per shape and bound per call (compiled by the runner as
// a raw statement). Both give the same SQL (tests/property/compiled-statements.property.test.ts).
// The two take turns for several rounds, on one core, so this machine's noise touches both alike.
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds') ?? 5);
const CALLS = 20_000;

const db = knex({ client: 'pg' });
allowNamedStatements(db);

const orgId = 'org_yRbsRDRYYfdE7Vxb5LIfD4';
const cases: [string, leadsQueries.PageArgs][] = [
  ['first page, no filter', { orgId, filters: {}, position: { page: 1, pageSize: 100 }, as: 'json', withTotal: true }],
  ['first page, status', { orgId, filters: { status: 'QUALIFIED' }, position: { page: 1, pageSize: 100 }, as: 'json', withTotal: true }],
  ['cursor page, no filter', {
    orgId, filters: {}, as: 'json', withTotal: true,
    position: { pageSize: 100, after: { nextCallAt: new Date('2026-12-01T09:00:00Z'), createdAt: new Date('2026-11-01T10:00:00Z'), id: 'lead_0123456789abcdefghij' } },
  }],
];

const ways = {
  'built anew': (args: leadsQueries.PageArgs) => prepared(db, leadsQueries.pageStatement(db, args)).toSQL(),
  'compiled once': (args: leadsQueries.PageArgs) => leadsQueries.compiledPageStatement(db, args),
};

function microsecondsPerCall(make: () => unknown): number {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) make();
  return ((performance.now() - started) * 1000) / CALLS;
}

function main(): void {
  const lines = [
    `Node ${process.version}; ${rounds} rounds taking turns, ${CALLS} calls each; medians of µs per call.`,
    '',
    `| statement | ${Object.keys(ways).join(' | ')} |`,
    `|---|${Object.keys(ways).map(() => '---:').join('|')}|`,
  ];
  for (const [name, args] of cases) {
    const results = new Map<string, number[]>(Object.keys(ways).map((w) => [w, []]));
    // Warm both up, so each round measures optimised code.
    for (const make of Object.values(ways)) microsecondsPerCall(() => make(args));
    for (let round = 0; round < rounds; round++) {
      for (const [way, make] of Object.entries(ways)) results.get(way)!.push(microsecondsPerCall(() => make(args)));
    }
    lines.push(`| ${name} | ${[...results.values()].map((r) => median(r).toFixed(1)).join(' | ')} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
void db.destroy();
