import { Agent, request } from 'node:http';

/** One answer, or why there was none. */
export type Outcome =
  | { kind: 'answer'; status: number; headers: Record<string, string | string[] | undefined>; body: unknown; latencyMs: number; endedAt: number }
  | { kind: 'timeout' | 'network'; error: string; latencyMs: number; endedAt: number };

export interface HttpClient {
  post(path: string, body: string, headers?: Record<string, string>): Promise<Outcome>;
  get(path: string): Promise<Outcome>;
  close(): void;
}

/**
 * Keep-alive HTTP with a hard deadline per request: a request with no complete answer by
 * `timeoutMs` is destroyed and reported as a timeout (a hung socket), never waited on longer.
 */
export function createHttpClient(baseUrl: string, options: { sockets: number; timeoutMs: number; authorization?: string }): HttpClient {
  const agent = new Agent({ keepAlive: true, maxSockets: options.sockets });
  const { hostname, port } = new URL(baseUrl);

  function send(method: 'GET' | 'POST', path: string, body: string | undefined, headers: Record<string, string>): Promise<Outcome> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const req = request({ agent, hostname, port, method, path, headers: { ...headers, ...(options.authorization ? { Authorization: options.authorization } : {}) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (err) => settle({ kind: 'network', error: (err as NodeJS.ErrnoException).code ?? err.message, latencyMs: elapsed(), endedAt: Date.now() }));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          settle({ kind: 'answer', status: res.statusCode ?? 0, headers: res.headers, body: parsed, latencyMs: elapsed(), endedAt: Date.now() });
        });
      });
      const timer = setTimeout(() => {
        settle({ kind: 'timeout', error: `no answer within ${options.timeoutMs} ms`, latencyMs: elapsed(), endedAt: Date.now() });
        req.destroy();
      }, options.timeoutMs);
      req.on('error', (err) => settle({ kind: 'network', error: (err as NodeJS.ErrnoException).code ?? err.message, latencyMs: elapsed(), endedAt: Date.now() }));
      req.end(body);
    });
  }

  return {
    post: (path, body, headers = {}) => send('POST', path, body, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers }),
    get: (path) => send('GET', path, undefined, {}),
    close: () => agent.destroy(),
  };
}
