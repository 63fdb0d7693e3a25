import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL, so a test can take the database away from one pool without
 * touching the server other tests use. `refuse`: closed port, open connections cut (as when
 * PostgreSQL stops). `silence`: connections stay open but nothing gets through either way (a dead
 * network path). `hold`: nothing gets through, but nothing is lost either: what was sent arrives
 * at `restore` (a hung machine that resumes, SIGSTOP then SIGCONT). `restore`: forwarding again.
 */
export interface TcpProxy {
  port: number;
  /** `url` with its host and port pointed at the proxy. */
  urlFor(url: string): string;
  refuse(): Promise<void>;
  silence(): void;
  hold(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let silent = false;
  let held: (() => void)[] | undefined;
  let server: Server | undefined;
  let port = 0;

  function forward(from: Socket, to: Socket): void {
    from.on('data', (chunk) => {
      if (held) held.push(() => to.write(chunk));
      else if (!silent) to.write(chunk);
    });
    from.on('close', () => to.destroy());
    from.on('error', () => to.destroy());
  }

  async function listen(): Promise<void> {
    const next = createServer((client) => {
      const upstream = connect(target.port, target.host);
      const pair: [Socket, Socket] = [client, upstream];
      pairs.add(pair);
      client.on('close', () => pairs.delete(pair));
      forward(client, upstream);
      forward(upstream, client);
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    port = (next.address() as { port: number }).port;
    server = next;
  }

  async function refuse(): Promise<void> {
    const current = server;
    server = undefined;
    for (const [client, upstream] of pairs) {
      client.destroy();
      upstream.destroy();
    }
    pairs.clear();
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  }

  await listen();
  return {
    port,
    urlFor(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    refuse,
    silence() {
      silent = true;
    },
    hold() {
      held ??= [];
    },
    async restore() {
      silent = false;
      const late = held ?? [];
      held = undefined;
      for (const write of late) write();
      if (!server) await listen();
    },
    close: refuse,
  };
}
