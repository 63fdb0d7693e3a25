import { createWorkspace, unique } from '../helpers/factories';
import { insertKeyWithEveryScope } from '../helpers/demo-round-trip';
import { MAXIMUM_TIER } from '../../src/auth/principal';
import {
  CASES, GENERATOR, STATEMENTS_DOC, StatementRecorder, WRITES, diff, documentedTable, parseTable, renderTable,
} from './support/statements-per-write';

// The table in docs/architecture.md ("Statements per write") against this run's counts. This test
// never writes the table: `npm run docs:statements` (scripts/statements-table.ts) does, from the
// same measurement (./support/statements-per-write.ts, where each row's description lives).

let recorder: StatementRecorder;

beforeAll(async () => {
  recorder = await StatementRecorder.start();
}, 60_000);

afterAll(async () => {
  await recorder?.close();
});

describe('statements per write (docs/architecture.md, "Statements per write")', () => {
  it('has a case for every write procedure of the registry', () => {
    expect(WRITES.filter((name) => !(name in CASES))).toEqual([]);
    expect(Object.keys(CASES).filter((name) => !WRITES.includes(name))).toEqual([]);
  });

  it('each write runs the number of statements the table says', async () => {
    const { counts, printed } = await recorder.measureAll({ print: process.env.PRINT_STATEMENTS === '1' });
    const table = documentedTable();
    if (table === undefined) throw new Error(`${STATEMENTS_DOC} lacks the statements-per-write markers: restore them and run \`${GENERATOR}\``);
    const changes = diff(parseTable(table), counts);
    const details = changes.map((c) => `  ${c.line}\n${printed.get(c.name) ?? ''}`).join('\n');
    const grew = changes.filter((c) => c.kind === 'grew').map((c) => c.line);
    if (grew.length > 0) {
      throw new Error(
        `A write runs more statements than docs/architecture.md says: find out why; if it must, update its description in ` +
        `tests/performance-contracts/support/statements-per-write.ts and run \`${GENERATOR}\`.\n${details}`,
      );
    }
    if (changes.length > 0) {
      throw new Error(`The statements-per-write table in docs/architecture.md is out of date: run \`${GENERATOR}\` to regenerate it.\n${details}`);
    }
    // The descriptions too: the table is the one the generator writes.
    if (table !== renderTable(counts)) {
      throw new Error(`The statements-per-write table's descriptions in docs/architecture.md differ from the generator's: run \`${GENERATOR}\`.`);
    }
  }, 180_000);

  it('runs no deliveries statement in a workspace without an enabled webhook endpoint', async () => {
    const quiet = await createWorkspace(recorder.ctx.db, { tier: MAXIMUM_TIER });
    const key = await insertKeyWithEveryScope(recorder.ctx.db, quiet.org.id);
    const counted = async (name: string, input: unknown) => {
      const { res, rec } = await recorder.recorded(name, input, key);
      expect(res.status).toBe(200);
      return rec.statements.filter((s) => recorder.kindOf(s) === 'counted').map((s) => ({ inTransaction: s.txId !== undefined, deliveries: /webhook_deliveries/.test(s.sql) }));
    };
    // leads.create: its one statement (rows, events and their deliveries), which needs no transaction;
    // contacts.create: the contact, then its events, and no deliveries statement.
    expect(await counted('leads.create', { name: unique('Quiet'), phone: '+442079460125' })).toEqual([{ inTransaction: false, deliveries: true }]);
    expect(await counted('contacts.create', { name: unique('Quiet'), phones: ['+442079460126'] }))
      .toEqual([{ inTransaction: true, deliveries: false }, { inTransaction: true, deliveries: false }]);
  });
});
