import { acrossWorkspaces } from '../../src/db/across-workspaces';
import { createWorkspaceNodes, SINGLE_NODE } from '../../src/db/nodes/workspace-nodes';
import { createTestDb } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';

const onCitus = process.env.WSAPI_TEST_CITUS === '1';

describe('where each workspace lives (src/db/nodes/workspace-nodes.ts)', () => {
  const db = createTestDb(2);
  afterAll(() => db.destroy());

  (onCitus ? it.skip : it)('is one node on one PostgreSQL, with nothing distributed', async () => {
    const nodes = createWorkspaceNodes(db);
    const { org } = await createWorkspace(db);
    expect(await nodes.distributed()).toBe(false);
    expect(await nodes.nodeOf(org.id)).toBe(SINGLE_NODE);
  });

  (onCitus ? it : it.skip)("is the worker Citus's metadata names, and follows the workspace's shard group when it moves", async () => {
    const nodes = createWorkspaceNodes(db, { refreshMs: 0 });
    const { org } = await createWorkspace(db);
    const placement = async () => (await db.raw<{ rows: { shard: string; host: string; port: number }[] }>(
      `select p.shardid::text as shard, n.nodename as host, n.nodeport as port
       from pg_dist_placement p join pg_dist_node n using (groupid)
       where p.shardid = get_shard_id_for_distribution_column('organisations', ?::text)`, [org.id])).rows[0]!;
    const before = await placement();
    expect(await nodes.distributed()).toBe(true);
    expect(await nodes.nodeOf(org.id)).toBe(`${before.host}:${before.port}`);

    const { rows: others } = await db.raw<{ rows: { host: string; port: number }[] }>(
      "select nodename as host, nodeport as port from pg_dist_node where noderole = 'primary' and shouldhaveshards and isactive and not (nodename = ? and nodeport = ?)",
      [before.host, before.port],
    );
    const target = others.find((n) => n.port !== before.port)!;
    // Moves the workspace's shard group (every co-located table) as the rebalancer would; writes wait meanwhile.
    await acrossWorkspaces(db, (trx) => trx.raw(
      "select citus_move_shard_placement(?::bigint, ?, ?, ?, ?, shard_transfer_mode => 'block_writes')",
      [before.shard, before.host, before.port, target.host, target.port],
    ));
    expect(await placement()).toEqual({ shard: before.shard, host: target.host, port: target.port });
    // Requests keep routing by the placements known while a refresh reads the new ones.
    const moved = `${target.host}:${target.port}`;
    const deadline = Date.now() + 5000;
    let seen = await nodes.nodeOf(org.id);
    while (seen !== moved && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = await nodes.nodeOf(org.id);
    }
    expect(seen).toBe(moved);
  }, 60_000);
});
