import request from 'supertest';
import { sleep, until } from '../helpers/poll';
import { closeInstances, instance, listLeads, workspaceWithKey } from '../helpers/key-cache-instances';

afterAll(closeInstances);

// That a cached key costs no api_keys read, observed with knex's query event: a performance
// contract; the revocations' behaviour is tests/integration/key-invalidation.test.ts.
describe('the key cache', () => {
  let a: ReturnType<typeof instance>;
  beforeAll(async () => {
    a = instance({ keyCacheTtlMs: 100 });
    expect(await until(() => a.listener.isLive(), 5000, 10)).toBe(true);
  });

  it('serves a verified key past the short TTL without reading api_keys again', async () => {
    const { victim } = await workspaceWithKey(a.db);
    expect((await listLeads(a.app, victim.key)).status).toBe(200);
    await sleep(300); // three short TTLs; the last-used write of the first request lands meanwhile
    const keyReads: string[] = [];
    const onQuery = (q: { sql: string }) => /from "api_keys"/.test(q.sql) && keyReads.push(q.sql);
    a.db.on('query', onQuery);
    try {
      expect((await listLeads(a.app, victim.key)).status).toBe(200);
    } finally {
      a.db.off('query', onQuery);
    }
    expect(keyReads).toEqual([]);
  });
});
