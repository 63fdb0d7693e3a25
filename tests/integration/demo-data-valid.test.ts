import { createDb } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrator';
import * as orgsQueries from '../../src/db/orgs';
import { seedDemo, type DemoSummary } from '../../seeds/01_demo_workspaces';
import { createTestContext, type TestContext } from '../helpers/test-app';
import { useOwnDatabase } from '../helpers/own-database';
import { errorOf } from '../helpers/rpc';
import {
  appRegistry, comparableOf, inBatches, NOT_UPDATED_IN_PLACE, recordIds, ROUND_TRIPS, routersWithUpdate, updateInputOf,
  withWorkspaceCaller, workspaceRowCounts, type Row,
} from '../helpers/demo-round-trip';

// The demo is what a new user tries first: every record in it must be one the API itself accepts.
// The demo is loaded into a database of its own, as on the service's first start.
const ownUrl = useOwnDatabase('wsapi_demo');

describe('demo data (seeds/01_demo_workspaces.ts)', () => {
  let ctx: TestContext;
  let demo: DemoSummary;
  let orgIds: string[];
  /** Rows of the demo's workspaces per table, right after the seed. */
  let seeded: Map<string, number>;

  beforeAll(async () => {
    const db = createDb({ url: ownUrl, poolMax: 8, namedStatements: true });
    ctx = createTestContext({ db, registry: appRegistry });
    await migrateLatest(db);
    expect(await orgsQueries.count(db)).toBe(0);
    demo = await seedDemo(db);
    orgIds = [demo.orgId, demo.lowerTierOrgId];
    seeded = await workspaceRowCounts(db, orgIds);
  }, 60_000);
  afterAll(() => ctx.close());

  it('has a round trip for every router with an update procedure, and places every table the seed fills', () => {
    expect(Object.keys(ROUND_TRIPS).sort()).toEqual(routersWithUpdate());
    const placed = new Set([...Object.values(ROUND_TRIPS).map((t) => t.table), ...Object.keys(NOT_UPDATED_IN_PLACE)]);
    expect([...seeded.keys()].filter((table) => !placed.has(table))).toEqual([]);
    expect(seeded.get('leads')).toBeGreaterThan(0);
  });

  it('writes every seeded record back unchanged through its update procedure: 200, and the same record read again', async () => {
    const problems: string[] = [];
    /** Records written back per router. */
    const covered = new Map<string, number>();
    for (const orgId of orgIds) {
      await withWorkspaceCaller(ctx.db, ctx.app, orgId, async (call) => {
        for (const [router, trip] of Object.entries(ROUND_TRIPS)) {
          if (!seeded.has(trip.table)) continue;
          await inBatches(await recordIds(ctx.db, trip.table, orgId), 8, async (id) => {
            const before = await trip.read(call, id);
            const input = updateInputOf(trip, before);
            const res = await call.write(trip.update, input);
            covered.set(router, (covered.get(router) ?? 0) + 1);
            if (res.status !== 200) {
              problems.push(`${trip.update} ${id}: ${res.status} ${JSON.stringify(errorOf(res).data.issues ?? errorOf(res).message)} for ${JSON.stringify(sent(input, errorOf(res)))}`);
              return;
            }
            const after = await trip.read(call, id);
            if (JSON.stringify(comparableOf(trip, after)) !== JSON.stringify(comparableOf(trip, before))) {
              problems.push(`${trip.update} ${id}: changed ${JSON.stringify(comparableOf(trip, before))} to ${JSON.stringify(comparableOf(trip, after))}`);
            }
            if (!(after.updatedAt > before.updatedAt)) problems.push(`${trip.update} ${id}: updatedAt did not move forward`);
          });
        }
      });
    }

    expect({ refused: problems.length, first: problems.slice(0, 15) }).toEqual({ refused: 0, first: [] });
    // Every router whose table the seed filled was walked, every record of it.
    const expected = Object.entries(ROUND_TRIPS).filter(([, t]) => seeded.has(t.table)).map(([router, t]) => [router, seeded.get(t.table)]);
    expect([...covered].sort()).toEqual(expected.sort());
  }, 180_000);

  it('links every CONVERTED lead to a client made from its contact, and counts it as converted, as leads.convert does', async () => {
    for (const orgId of orgIds) {
      await withWorkspaceCaller(ctx.db, ctx.app, orgId, async (call) => {
        const all = await call.read('leads.getAll', { pageSize: 1 });
        const converted = await call.read('leads.getAll', { status: 'CONVERTED', pageSize: 100 });
        expect(converted.pagination.hasNextPage).toBe(false);
        for (const lead of converted.data as Row[]) {
          expect(lead.clientId).toEqual(expect.any(String));
          const client = await call.read('clients.getById', { id: lead.clientId });
          expect({ contactId: client.contactId, name: client.name }).toEqual({ contactId: lead.contactId, name: lead.name });
        }
        // Demo leads were created in the last 90 days, so a year's range counts them all.
        const now = Date.now();
        const stats = await call.read('dashboard.getLeadStats', { from: new Date(now - 365 * 86_400_000), to: new Date(now + 60_000) });
        expect(stats.conversion).toMatchObject({ created: all.pagination.total, converted: converted.pagination.total });
        expect(converted.pagination.total).toBeGreaterThan(0);
      });
    }
  });
});

/** The fields an error names (or the whole input when it names none), so a failure shows the refused values. */
function sent(input: Row, error: { data: { issues?: { path: (string | number)[] }[] } }): Row {
  const fields = new Set((error.data.issues ?? []).map((issue) => String(issue.path[0])));
  return fields.size === 0 ? input : Object.fromEntries(Object.entries(input).filter(([field]) => fields.has(field) || field === 'id'));
}
