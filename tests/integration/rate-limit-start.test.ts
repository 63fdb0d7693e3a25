import request from 'supertest';
import type { Db } from '../../src/db/knex';
import { createTestDb, testDatabaseUrl } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { killIfRunning, startServer, type ServerProcess } from '../helpers/server-process';
import { describeWithRedis, TEST_REDIS_URL } from '../helpers/rate-limit';

/** The service as `npm start` runs it builds its limiter from the environment and closes it on SIGTERM. */

let db: Db;
let server: ServerProcess | undefined;
beforeAll(() => {
  db = createTestDb();
});
afterEach(() => killIfRunning(server));
afterAll(() => db.destroy());

async function threeListCalls(port: number, key: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    statuses.push((await request(`http://127.0.0.1:${port}`).get('/api/v1/leads').set('Authorization', `Bearer ${key}`)).status);
  }
  return statuses;
}

describe('started without REDIS_URL', () => {
  it('warns once that its counters are for one instance only, limits with RATE_LIMIT_PER_MINUTE=2, and exits 0 on SIGTERM', async () => {
    const ws = await createWorkspace(db);
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), RATE_LIMIT_PER_MINUTE: '2' });

    expect(await threeListCalls(server.port, ws.key)).toEqual([200, 200, 429]);
    const warnings = server.lines.filter((line) => /counters are kept in this process/.test(line));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!).level).toBe(40);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});

describeWithRedis('started with REDIS_URL', () => {
  it('counts in Redis, and exits 0 on SIGTERM', async () => {
    const ws = await createWorkspace(db);
    server = await startServer({ DATABASE_URL: testDatabaseUrl(), REDIS_URL: TEST_REDIS_URL, RATE_LIMIT_PER_MINUTE: '2' });

    expect(server.lines.some((line) => /rate limits: counters in Redis/.test(line))).toBe(true);
    expect(server.lines.some((line) => /counters are kept in this process|counter store is unavailable/.test(line))).toBe(false);
    expect(await threeListCalls(server.port, ws.key)).toEqual([200, 200, 429]);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
