import http from 'node:http';

/** One write through the service's RPC endpoint (POST, `{"json": input}`), answered or failed. */
export interface RpcWriter {
  send(name: string, input: unknown): Promise<number>;
  close(): void;
}

/** Writes over kept-alive connections to `baseUrl` with `key`; answers each write's status (0: a network error). */
export function rpcWriter(baseUrl: string, key: string): RpcWriter {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  return {
    send(name, input) {
      const body = JSON.stringify({ json: input });
      return new Promise((resolve) => {
        const req = http.request({
          host: url.hostname, port: url.port, path: `/api/v1/rpc/${name}`, method: 'POST', agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), Authorization: `Bearer ${key}` },
        }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', () => resolve(0));
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

export interface PacedResult {
  sent: number;
  ok: number;
  failed: number;
  /** How far behind its schedule the last write left, in ms (a writer that kept up: near 0). */
  lagMs: number;
  /** When each write's answer arrived (epoch ms, sub-millisecond), in the order sent. */
  answeredAt: number[];
  /** How many answered each status other than 200 (0: a network error). */
  others: Record<number, number>;
}

/**
 * `count` writes at `perSecond`, each sent at its time without waiting for the ones before (a
 * fixed rate, as autocannon's), made by `write(i)`; resolves once every one is answered.
 */
export async function pacedWrites(count: number, perSecond: number, write: (i: number) => Promise<number>): Promise<PacedResult> {
  const started = performance.now();
  const answers: Promise<number>[] = [];
  const answeredAt: number[] = [];
  let lagMs = 0;
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((done) => setTimeout(done, wait));
    lagMs = Math.max(0, performance.now() - due);
    answers.push(write(i).then((status) => {
      answeredAt[i] = performance.timeOrigin + performance.now();
      return status;
    }));
  }
  const statuses = await Promise.all(answers);
  const ok = statuses.filter((s) => s === 200).length;
  const others: Record<number, number> = {};
  for (const status of statuses) if (status !== 200) others[status] = (others[status] ?? 0) + 1;
  return { sent: count, ok, failed: count - ok, lagMs: Math.round(lagMs), answeredAt, others };
}
