import express from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { createTestContext } from '../helpers/test-app';

const ctx = createTestContext();
afterAll(() => ctx.close());

/** The headers helmet itself sets on a bare Express app, to compare with ours. */
async function helmetHeaders(): Promise<Record<string, string>> {
  const bare = express();
  bare.disable('x-powered-by');
  bare.use(helmet());
  bare.get('/', (_req, res) => {
    res.end();
  });
  const res = await request(bare).get('/');
  const names = Object.keys(res.headers).filter((h) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(h));
  return Object.fromEntries(names.map((h) => [h, res.headers[h] as string]));
}

describe('security headers', () => {
  it('are exactly helmet defaults on API answers, errors included, with no X-Powered-By', async () => {
    const expected = await helmetHeaders();
    expect(Object.keys(expected)).toEqual(expect.arrayContaining(['content-security-policy', 'strict-transport-security', 'x-content-type-options']));
    const paths = ['/healthz', '/api/v1/rpc/leads.getAll', '/api/v1/leads'];
    for (const path of paths) {
      const res = await request(ctx.app).get(path);
      // The public API lets browsers of other origins read its answers (CORS, cors.test.ts): CORP cross-origin there only.
      const corp = path.startsWith('/api/v1/') ? 'cross-origin' : expected['cross-origin-resource-policy'];
      for (const [name, value] of Object.entries({ ...expected, 'cross-origin-resource-policy': corp })) {
        expect([path, name, res.headers[name]]).toEqual([path, name, value]);
      }
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });
});
