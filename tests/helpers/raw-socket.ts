import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

/** What came back on a raw connection before the server closed it. */
export interface RawExchange {
  /** Everything the server wrote, as text. */
  text: string;
  status: number | undefined;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** True when the server ended the connection (rather than the test giving up). */
  closedByServer: boolean;
}

export function parseExchange(text: string, closedByServer: boolean): RawExchange {
  const end = text.indexOf('\r\n\r\n');
  const head = end === -1 ? text : text.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { text, status: status ? Number(status) : undefined, headers, body: end === -1 ? '' : text.slice(end + 4), closedByServer };
}

export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}

/**
 * Opens a connection, lets `write` send whatever bytes it likes, and collects the answer until
 * the server closes the connection or `giveUpMs` passes (then the test's own end closes it).
 */
export function exchange(server: Server, write: (socket: Socket) => void, giveUpMs = 10_000): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(portOf(server), '127.0.0.1');
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      return true;
    };
    const finish = (closedByServer: boolean) => {
      if (settle()) resolve(parseExchange(Buffer.concat(chunks).toString('utf8'), closedByServer));
    };
    const timer = setTimeout(() => finish(false), giveUpMs);
    socket.on('connect', () => write(socket));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    // A reset after the answer is still an answer; before any byte it is a failure to report.
    socket.on('error', (err) => {
      if (chunks.length > 0) finish(true);
      else if (settle()) reject(err);
    });
  });
}

/** Sends `bytes` at once and collects the answer. */
export function sendRaw(server: Server, bytes: string | Buffer, giveUpMs?: number): Promise<RawExchange> {
  return exchange(server, (socket) => socket.write(bytes), giveUpMs);
}
