import request from 'supertest';
import { createWorkspace } from '../helpers/factories';
import { createObservedApp } from '../helpers/observability-app';
import { rpcGet } from '../helpers/rpc';

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(app: Parameters<typeof request>[0]): Promise<string> {
  // Requests are counted when their answer closes, which may trail the client's reading it.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const res = await request(app).get('/metrics').expect(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

describe('GET /metrics without METRICS_TOKEN', () => {
  // An app of its own, so its counters start at zero whatever other tests do.
  const ctx = createObservedApp();
  afterAll(() => ctx.close());

  it('counts requests by procedure and status, collapsing unknown procedure names to "unknown"', async () => {
    const ws = await createWorkspace(ctx.db);
    await rpcGet(ctx.app, 'leads.getAll', {}, ws.key).expect(200);
    await rpcGet(ctx.app, 'leads.getAll', {}, ws.key).expect(200);
    await rpcGet(ctx.app, 'leads.getById', { id: 'lead_missing' }, ws.key).expect(404);
    await rpcGet(ctx.app, 'leads.getAll', {}, 'wsk_bad').expect(401);
    await rpcGet(ctx.app, 'made.up-name-1', undefined, ws.key).expect(404);
    await rpcGet(ctx.app, 'made.up-name-2', undefined, ws.key).expect(404);
    await request(ctx.app).get('/api/v1/leads').set('Authorization', `Bearer ${ws.key}`).expect(200);
    const text = await scrape(ctx.app);
    expect(sample(text, 'http_requests_total{route="leads.getAll",status="200"}')).toBe(2);
    expect(sample(text, 'http_requests_total{route="leads.getAll",status="401"}')).toBe(1);
    expect(sample(text, 'http_requests_total{route="leads.getById",status="404"}')).toBe(1);
    expect(sample(text, 'http_requests_total{route="unknown",status="404"}')).toBe(2);
    expect(sample(text, 'http_requests_total{route="GET /api/v1/leads",status="200"}')).toBe(1);
    expect(text).not.toContain('made.up-name');
  });

  it('has a latency histogram by procedure', async () => {
    const text = await scrape(ctx.app);
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(sample(text, 'http_request_duration_seconds_count{route="leads.getAll"}')).toBe(3);
    expect(sample(text, 'http_request_duration_seconds_bucket{le="+Inf",route="leads.getAll"}')).toBe(3);
    expect(sample(text, 'http_request_duration_seconds_sum{route="leads.getAll"}')).toBeGreaterThan(0);
  });

  it('reads the pool gauges at scrape time: a connection held by a transaction is in use', async () => {
    const trx = await ctx.db.transaction();
    try {
      const busy = await scrape(ctx.app);
      expect(sample(busy, 'db_pool_connections_in_use')).toBeGreaterThanOrEqual(1);
      expect(sample(busy, 'db_pool_connections_max')).toBe(5);
      expect(sample(busy, 'db_pool_acquires_waiting')).toBe(0);
      expect(sample(busy, 'db_pool_connections_pending')).toBe(0);
    } finally {
      await trx.rollback();
    }
    const idle = await scrape(ctx.app);
    expect(sample(idle, 'db_pool_connections_in_use')).toBe(0);
    expect(sample(idle, 'db_pool_connections_idle')).toBeGreaterThanOrEqual(1);
  });

  it('has the process metrics', async () => {
    const text = await scrape(ctx.app);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('nodejs_heap_size_used_bytes');
  });

  it('keeps each app\'s counters apart: a second app in the process starts from zero', async () => {
    const other = createObservedApp();
    try {
      const text = await scrape(other.app);
      expect(sample(text, 'http_requests_total{route="leads.getAll",status="200"}')).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789abcdef';
  const ctx = createObservedApp({ metricsToken: token });
  afterAll(() => ctx.close());

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', 'Bearer metrics-token-0123456789abcdeX'],
    ['the token without the Bearer scheme', token],
    ['a prefix of the token', 'Bearer metrics-token'],
  ])('answers 401 in the REST error body for %s', async (_label, authorization) => {
    let req = request(ctx.app).get('/metrics');
    if (authorization !== undefined) req = req.set('Authorization', authorization);
    const res = await req;
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.stringContaining('METRICS_TOKEN') } });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(res.text).not.toContain('http_requests_total');
  });

  it('answers 200 with the metrics for Authorization: Bearer <METRICS_TOKEN>', async () => {
    const res = await request(ctx.app).get('/metrics').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('http_requests_total{route="GET /metrics",status="401"}');
  });
});
