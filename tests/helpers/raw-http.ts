import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

/** One request exactly as it goes on the wire (no client-side normalisation of path, query or body). */
export interface RawRequest {
  method: string;
  /** Path and query, already encoded as they should be sent. */
  target: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A keep-alive HTTP client for a started server: thousands of requests in a few seconds, each
 * sent byte for byte as generated (supertest's per-request setup is several times slower).
 */
export function createRawClient(server: Server, maxSockets = 16) {
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets });
  function send(req: RawRequest): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers };
      if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
      const outgoing = request({ host: '127.0.0.1', port, method: req.method, path: req.target, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(req.body);
    });
  }
  return { send, close: () => agent.destroy() };
}
