import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Db } from '../../src/db/knex';
import { newId } from '../../src/domain/ids';
import { EVENT_READ_SCOPES } from '../../src/events/event-types';
import { createLogger } from '../../src/logger';
import { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from '../../src/webhooks/delivery-worker';
import { testDatabaseUrl } from './test-app';

const ROOT = join(__dirname, '..', '..');

/**
 * A webhook endpoint row written directly (the webhooks.* procedures are tested on their own), owned
 * by an API key, subscribed to every type by default and keeping every event read scope.
 */
export async function insertEndpoint(
  db: Db,
  options: { orgId: string; ownerKeyId: string; url: string; events?: string[]; readScopes?: readonly string[]; secret?: string },
): Promise<{ id: string; secret: string }> {
  const id = newId('wh');
  const secret = options.secret ?? `whsec_test${id.slice(3)}`;
  await db('webhook_endpoints').insert({
    org_id: options.orgId,
    id,
    url: options.url,
    events: options.events ?? ['*'],
    secret,
    owner_kind: 'apiKey',
    owner_id: options.ownerKeyId,
    read_scopes: [...(options.readScopes ?? EVENT_READ_SCOPES)],
  });
  return { id, secret };
}

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  eventId: string;
  eventType: string;
}

/** What the receiver answers to one request: a status (after `delayMs`), or 'hold' to never answer. */
export type Reply = { status: number; body?: string; delayMs?: number } | 'hold';

export interface Receiver {
  url: string;
  /** Every request, in arrival order. */
  requests: ReceivedRequest[];
  /** Event ids of the requests answered 2xx, in order (the answer fully sent). */
  acknowledged: string[];
  /** The most requests for one event id that were ever in flight at once. */
  maxInFlightPerEvent(): number;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (port 0); `reply` decides each answer (200 by default). */
export async function startReceiver(reply: (request: ReceivedRequest, nth: number) => Reply | Promise<Reply> = () => ({ status: 200 })): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const acknowledged: string[] = [];
  const inFlight = new Map<string, number>();
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        eventId: String(req.headers['workspace-event-id']),
        eventType: String(req.headers['workspace-event-type']),
      };
      requests.push(received);
      const now = (inFlight.get(received.eventId) ?? 0) + 1;
      inFlight.set(received.eventId, now);
      maxInFlight = Math.max(maxInFlight, now);
      const done = () => inFlight.set(received.eventId, inFlight.get(received.eventId)! - 1);
      res.once('close', done);
      void Promise.resolve(reply(received, requests.length)).then((answer) => answerWith(res, answer, () => acknowledged.push(received.eventId)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    acknowledged,
    maxInFlightPerEvent: () => maxInFlight,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function answerWith(res: ServerResponse, answer: Reply, onAcknowledged: () => void): void {
  if (answer === 'hold') return;
  setTimeout(() => {
    if (res.destroyed) return;
    res.once('finish', () => {
      if (answer.status >= 200 && answer.status < 300) onAcknowledged();
    });
    res.writeHead(answer.status, { 'Content-Type': 'text/plain' }).end(answer.body ?? 'ok');
  }, answer.delayMs ?? 0);
}

/** Fast settings for tests: 50 ms retry base, 20 ms poll, only the given workspaces. */
export function startTestWorker(db: Db, orgIds: string[], overrides: Partial<DeliveryWorkerOptions> = {}): DeliveryWorker {
  const worker = createDeliveryWorker({
    db,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    policy: 'development',
    timeoutMs: 2000,
    leaseMs: 6000,
    retryBaseMs: 50,
    maxAttempts: 5,
    disableAfterMs: 86_400_000,
    concurrency: 4,
    pollMs: 20,
    orgIds,
    ...overrides,
  });
  worker.start();
  return worker;
}

export interface StoredAttempt {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

/** The workspace's deliveries, by event order, with their attempts (oldest first). */
export async function deliveriesOf(db: Db, orgId: string) {
  const deliveries: { id: string; endpoint_id: string; event_id: string; status: string; attempts: number; completed_at: Date | null; locked_until: Date | null; claim_token: string | null }[] = await db('webhook_deliveries')
    .where({ org_id: orgId })
    .orderBy('event_seq')
    .select('id', 'endpoint_id', 'event_id', 'status', 'attempts', 'completed_at', 'locked_until', 'claim_token');
  const attempts: StoredAttempt[] = await db('webhook_delivery_attempts').where({ org_id: orgId }).orderBy(['delivery_id', 'attempt']).select('delivery_id', 'attempt', 'status_code', 'error', 'response_excerpt');
  return deliveries.map((d) => ({ ...d, attemptRows: attempts.filter((a) => a.delivery_id === d.id) }));
}

/** `npm run worker` as its own process (tsx, like the server tests), on the test database. */
export function startWorkerProcess(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/webhooks/worker-main.ts'], {
    cwd: ROOT,
    // No health endpoint unless asked: its default port would collide between test files.
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', DATABASE_URL: testDatabaseUrl(), WORKER_HEALTH_PORT: '0', ...env },
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}
