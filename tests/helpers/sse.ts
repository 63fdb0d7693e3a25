import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import superjson from 'superjson';
import { createHttpServer } from '../../src/server/http-server';

/** One Server-Sent Event as the wire carries it (data still text). */
export interface SseFrame {
  event: string;
  data: string;
  id?: string;
}

/** The app on a real port: streams need a socket that stays open, which supertest does not give. */
export async function listen(app: Express): Promise<{ url: string; server: http.Server; close(): Promise<void> }> {
  const server = createHttpServer(app).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export function subscriptionPath(name: string, input?: unknown, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams(extra);
  if (input !== undefined) query.set('input', JSON.stringify(superjson.serialize(input)));
  const text = query.toString();
  return `/api/v1/rpc/${name}${text ? `?${text}` : ''}`;
}

/**
 * An SSE reader over a plain HTTP request: the status and headers, then frames as they come.
 * `next()` answers the next frame (or fails after `timeoutMs`); `values()` the default messages' values.
 */
export async function openStream(baseUrl: string, path: string, headers: Record<string, string> = {}) {
  const frames: SseFrame[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  const req = http.request(`${baseUrl}${path}`, { headers: { Accept: 'text/event-stream', ...headers } });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
  let body = '';
  let buffer = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    body += chunk;
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (block.trim() === '') continue;
      const frame: SseFrame = { event: 'message', data: '' };
      for (const line of block.split('\n')) {
        const at = line.indexOf(': ');
        const [field, value] = at === -1 ? [line.replace(/:$/, ''), ''] : [line.slice(0, at), line.slice(at + 2)];
        if (field === 'event') frame.event = value;
        else if (field === 'data') frame.data = value;
        else if (field === 'id') frame.id = value;
      }
      frames.push(frame);
    }
    waiters.splice(0).forEach((wake) => wake());
  });
  res.on('close', () => {
    ended = true;
    waiters.splice(0).forEach((wake) => wake());
  });
  let read = 0;
  async function next(timeoutMs = 5000): Promise<SseFrame> {
    const deadline = Date.now() + timeoutMs;
    while (read >= frames.length) {
      if (ended) throw new Error(`the stream ended after ${frames.length} frames`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no frame within ${timeoutMs} ms (had ${frames.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
    return frames[read++]!;
  }
  /** The next frame that is not a ping. */
  async function nextMessage(timeoutMs = 5000): Promise<SseFrame> {
    for (;;) {
      const frame = await next(timeoutMs);
      if (frame.event !== 'ping') return frame;
    }
  }
  return {
    status: res.statusCode!,
    headers: res.headers,
    /** The whole body so far (an error envelope before the stream, or the raw frames). */
    body: () => body,
    frames,
    next,
    nextMessage,
    /** The next n values (default messages), deserialised. */
    async values(n: number, timeoutMs = 5000): Promise<{ id?: string; value: any }[]> {
      const out: { id?: string; value: any }[] = [];
      while (out.length < n) {
        const frame = await nextMessage(timeoutMs);
        if (frame.event !== 'message') throw new Error(`expected a value, got event ${frame.event}: ${frame.data}`);
        out.push({ id: frame.id, value: superjson.deserialize(JSON.parse(frame.data)) });
      }
      return out;
    },
    isEnded: () => ended,
    async ended(timeoutMs = 5000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!ended) {
        if (Date.now() > deadline) throw new Error(`the stream did not end within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => req.destroy(),
  };
}
