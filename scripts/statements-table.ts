/**
 * Regenerates the statements-per-write table in docs/architecture.md: calls every write procedure
 * once through HTTP on a fresh test database (the one `npm test` would use: TEST_DATABASE_URL's
 * server, TEST_DATABASE_COMMAND's cluster, or the embedded database) and writes the counts between
 * the markers. `--check` writes nothing and exits 1 when the table differs; `--print` prints every
 * call's statements. tests/performance-contracts/statements-per-write.test.ts checks the table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import globalSetup from '../tests/helpers/global-setup';
import globalTeardown from '../tests/helpers/global-teardown';
import {
  STATEMENTS_DOC, StatementRecorder, diff, parseTable, renderTable, replaceTable, tableBetweenMarkers,
} from '../tests/performance-contracts/support/statements-per-write';

async function main(): Promise<number> {
  const args = new Set(process.argv.slice(2));
  if (args.has('--help')) {
    console.log('npm run docs:statements [-- --check] [-- --print]');
    return 0;
  }
  const print = args.has('--print');
  await globalSetup();
  try {
    const recorder = await StatementRecorder.start({ print });
    let table: string;
    let counts;
    try {
      ({ counts } = await recorder.measureAll({ print }));
      table = renderTable(counts);
    } finally {
      await recorder.close();
    }
    const doc = readFileSync(STATEMENTS_DOC, 'utf8');
    const changes = diff(parseTable(tableBetweenMarkers(doc) ?? ''), counts);
    for (const change of changes) console.log(`  ${change.line}`);
    const current = tableBetweenMarkers(doc) === table;
    if (args.has('--check')) {
      console.log(current ? 'the statements-per-write table is current' : 'the statements-per-write table differs: run npm run docs:statements');
      return current ? 0 : 1;
    }
    if (!current) writeFileSync(STATEMENTS_DOC, replaceTable(doc, table));
    console.log(current ? `${STATEMENTS_DOC}: unchanged` : `${STATEMENTS_DOC}: table rewritten`);
    return 0;
  } finally {
    await globalTeardown();
  }
}

main().then((code) => process.exit(code), (err) => {
  console.error(err);
  process.exit(1);
});
