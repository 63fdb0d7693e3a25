import autocannon from 'autocannon';
import { percentile } from './report';

/**
 * Runs in its own process (so the load generator never shares a CPU budget with the harness):
 * a warm-up, then the counted run; prints one JSON line with req/s and exact latency
 * percentiles (autocannon's histogram has no p95, so every response time is kept).
 */
export interface CannonJob {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Bodies sent in turn (POST); each distinct so inserts do not collide. */
  bodies?: string[];
  /**
   * Requests sent in turn, instead of `bodies`: each over the job's url, method and headers, with
   * its own path (the url's, otherwise), headers added to the job's, and body. For load spread
   * over several workspaces: a path or a key for each.
   */
  requests?: CannonRequest[];
  connections: number;
  /** A fixed total rate (requests per second) instead of as fast as the server answers. */
  rate?: number;
  warmupSeconds: number;
  seconds: number;
}

export interface CannonRequest {
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface CannonResult {
  requests: number;
  rps: number;
  non2xx: number;
  errors: number;
  p50: number;
  p95: number;
  p99: number;
  /** The server's CPU time (user + system) per request during the counted run, in microseconds. */
  serverCpuUsPerRequest?: number;
  /** Every PostgreSQL process's CPU time per request during the counted run, in microseconds. */
  databaseCpuUsPerRequest?: number;
}

async function run(job: CannonJob, seconds: number): Promise<CannonResult> {
  const times: number[] = [];
  let next = 0;
  const requests: CannonRequest[] = job.requests ?? (job.bodies ?? []).map((body) => ({ body }));
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        method: job.method ?? 'GET',
        headers: job.headers,
        connections: job.connections,
        duration: seconds,
        ...(job.rate ? { overallRate: job.rate } : {}),
        requests: requests.length
          ? [{
            setupRequest: (req) => {
              const { path, headers, body } = requests[next++ % requests.length]!;
              return { ...req, ...(path ? { path } : {}), ...(headers ? { headers: { ...req.headers, ...headers } } : {}), ...(body !== undefined ? { body } : {}) };
            },
          }]
          : undefined,
      },
      (err, done) => (err ? reject(err) : resolve(done)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => times.push(responseTime));
  });
  times.sort((a, b) => a - b);
  return {
    requests: result.requests.total,
    rps: Math.round(result.requests.total / seconds),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
  };
}

async function main(): Promise<void> {
  // The job comes on stdin: thousands of request bodies do not fit in argv.
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  const job = JSON.parse(text) as CannonJob;
  if (job.warmupSeconds > 0) await run(job, job.warmupSeconds);
  // Tells the parent the counted run starts now, so it can read the server's CPU time from here.
  process.stderr.write('COUNTED_RUN_STARTS\n');
  process.stdout.write(`${JSON.stringify(await run(job, job.seconds))}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
