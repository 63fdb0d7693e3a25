import { createTestDb } from '../helpers/test-app';
import { acrossWorkspaces } from '../../src/db/across-workspaces';

// The service's named exemption from single-shard statements (src/db/across-workspaces.ts, not an
// entry point of src/db): on Citus, tests/integration/citus-distribution.test.ts shows the run
// refusing what this lifts.
const db = createTestDb(1);
afterAll(() => db.destroy());

describe('acrossWorkspaces', () => {
  it('runs its work in one transaction and answers what the work answers', async () => {
    const answer = await acrossWorkspaces(db, async (trx) => {
      const { rows } = await trx.raw('select txid_current() as a, txid_current() as b');
      return rows[0];
    });
    expect(answer.a).toBe(answer.b);
  });

  it('lets a statement across workspaces run on the run\'s database, where it is refused outside', async () => {
    const counted = await acrossWorkspaces(db, (trx) => trx.raw('select count(*)::int as n from leads'));
    expect(counted.rows[0].n).toBeGreaterThanOrEqual(0);
    if (process.env.WSAPI_TEST_CITUS === '1') await expect(db.raw('select count(*) from leads')).rejects.toThrow(/multi-task query about to be executed/);
  });
});
