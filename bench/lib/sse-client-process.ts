import http from 'node:http';
import type { SseCommand, SseReply, SubscriberSpec, LatencyHistogram } from './sse-clients';

// A process holding many Server-Sent Events subscribers (bench/subscriptions.ts starts one or
// more, driven over IPC by SseClients). Light on purpose: raw http.request on one agent, no
// EventSource, a hand-rolled frame parser that reads only the `event:` and `id:` lines, and each
// event's data parsed once per process (for its createdAt), not once per subscriber.

interface Subscriber {
  request: http.ClientRequest;
  buffer: string;
  connected: boolean;
  /** Closed by this process (or never opened): not resumed. */
  closed: boolean;
  lastId: string | undefined;
  /** Events received since the last reset, and two sums of their ids' hashes (a multiset check). */
  count: number;
  sum: number;
  xor: number;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const subscribers: Subscriber[] = [];
/** Each event id seen since the last reset: its createdAt (epoch ms), receipts, and its slowest receipt. */
const events = new Map<string, { createdAt: number; receipts: number; slowest: number }>();
const BUCKET_MS = 0.1;
/** 0.1 ms buckets up to 300 s; a later receipt counts in the last. */
let histogram = new Uint32Array(3_000_000);
let pings = 0;
let errors = 0;
let reconnects = 0;

const now = () => performance.timeOrigin + performance.now();

/** FNV-1a, 32 bits. */
function hashId(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function createdAtOf(data: string): number {
  // superjson's envelope: {"json": <event>, "meta": ...}; the event's createdAt is ISO 8601 text.
  const parsed = JSON.parse(data) as { json?: { createdAt?: string } };
  return Date.parse(parsed.json?.createdAt ?? '');
}

/** One frame (the text between blank lines); reads only what the counts need. */
function onFrame(sub: Subscriber, text: string, at: number, onConnected: () => void): void {
  let frame = text;
  while (frame.charCodeAt(0) === 10) frame = frame.slice(1);
  if (frame.startsWith('data: ')) {
    const idAt = frame.indexOf('\nid: ');
    if (idAt === -1) return;
    const idEnd = frame.indexOf('\n', idAt + 5);
    const id = frame.slice(idAt + 5, idEnd === -1 ? undefined : idEnd);
    let seen = events.get(id);
    if (!seen) {
      seen = { createdAt: createdAtOf(frame.slice(6, idAt)), receipts: 0, slowest: 0 };
      events.set(id, seen);
    }
    const latency = at - seen.createdAt;
    seen.receipts++;
    if (latency > seen.slowest) seen.slowest = latency;
    histogram[Math.min(histogram.length - 1, Math.max(0, Math.floor(latency / BUCKET_MS)))]!++;
    sub.count++;
    sub.lastId = id;
    const h = hashId(id);
    sub.sum = (sub.sum + h) >>> 0;
    sub.xor = (sub.xor ^ h) >>> 0;
    return;
  }
  if (!frame.startsWith('event: ')) return;
  const end = frame.indexOf('\n');
  const event = frame.slice(7, end === -1 ? undefined : end);
  if (event === 'connected') {
    if (!sub.connected) {
      sub.connected = true;
      onConnected();
    }
  } else if (event === 'ping') pings++;
  else if (event === 'serialized-error' || event === 'return') errors++;
}

/** How long a subscriber whose stream ended waits before it resumes (as EventSource does, with Last-Event-ID). */
const RECONNECT_MS = 250;

function open(baseUrl: URL, spec: SubscriberSpec): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (ok: boolean) => {
      if (settled) return;
      settled = true;
      resolve(ok);
    };
    const sub: Subscriber = { request: undefined!, buffer: '', connected: false, closed: false, lastId: undefined, count: 0, sum: 0, xor: 0 };
    const connect = () => {
      const request = http.request({
        host: baseUrl.hostname, port: baseUrl.port, path: spec.path, agent,
        headers: { Accept: 'text/event-stream', ...spec.headers, ...(sub.lastId ? { 'Last-Event-ID': sub.lastId } : {}) },
      });
      sub.request = request;
      sub.buffer = '';
      const ended = () => {
        if (sub.closed || sub.request !== request) return;
        // A stream that ended under way is resumed, as a client would; one that never opened counts as failed.
        if (!settled) {
          sub.closed = true;
          settle(false);
          return;
        }
        reconnects++;
        setTimeout(() => !sub.closed && connect(), RECONNECT_MS);
      };
      request.on('response', (res) => {
        if (res.statusCode !== 200) {
          errors++;
          res.resume();
          request.destroy();
          sub.closed = true;
          settle(false);
          return;
        }
        if (!settled) subscribers.push(sub);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = now();
          let text = sub.buffer + chunk;
          let boundary = text.indexOf('\n\n');
          while (boundary !== -1) {
            const frame = text.slice(0, boundary);
            text = text.slice(boundary + 2);
            if (frame.length > 1) onFrame(sub, frame, at, () => settle(true));
            boundary = text.indexOf('\n\n');
          }
          sub.buffer = text;
        });
        res.on('close', ended);
      });
      request.on('error', () => {
        errors++;
        ended();
      });
      request.end();
    };
    connect();
  });
}

async function openAll(baseUrl: string, specs: SubscriberSpec[], concurrency: number): Promise<{ opened: number; failed: number }> {
  let next = 0;
  let opened = 0;
  let failed = 0;
  const url = new URL(baseUrl);
  async function lane(): Promise<void> {
    while (next < specs.length) {
      const ok = await open(url, specs[next++]!);
      if (ok) opened++;
      else failed++;
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, specs.length) }, lane));
  return { opened, failed };
}

function closeAll(): void {
  for (const sub of subscribers) {
    sub.closed = true;
    sub.request.destroy();
  }
  subscribers.length = 0;
}

function reset(): void {
  events.clear();
  histogram = new Uint32Array(histogram.length);
  pings = 0;
  errors = 0;
  reconnects = 0;
  for (const sub of subscribers) {
    sub.count = 0;
    sub.sum = 0;
    sub.xor = 0;
  }
}

function latencyHistogram(): LatencyHistogram {
  const buckets: [number, number][] = [];
  for (let i = 0; i < histogram.length; i++) if (histogram[i]) buckets.push([i, histogram[i]!]);
  return { bucketMs: BUCKET_MS, buckets };
}

/**
 * Checks each open subscriber's events since the last reset against `expected` (ids): the same
 * count and the same two sums of the ids' hashes, so a missed event, a repeat or a stranger shows.
 */
function verify(expected: string[]) {
  let sum = 0;
  let xor = 0;
  for (const id of expected) {
    const h = hashId(id);
    sum = (sum + h) >>> 0;
    xor = (xor ^ h) >>> 0;
  }
  let complete = 0;
  let short = 0;
  let over = 0;
  let mismatched = 0;
  let missing = 0;
  for (const sub of subscribers) {
    if (sub.count === expected.length && sub.sum === sum && sub.xor === xor) complete++;
    else if (sub.count < expected.length) {
      short++;
      missing += expected.length - sub.count;
    } else if (sub.count > expected.length) over++;
    else mismatched++;
  }
  const wanted = new Set(expected);
  const unknown = [...events.keys()].filter((id) => !wanted.has(id)).length;
  return { subscribers: subscribers.length, complete, short, over, mismatched, missing, unknown };
}

function stats() {
  let receipts = 0;
  for (const sub of subscribers) receipts += sub.count;
  const slowest = [...events.values()].map((e) => e.slowest);
  return {
    open: subscribers.filter((s) => !s.closed).length, receipts, pings, errors, reconnects,
    events: events.size, slowestPerEvent: slowest, latency: latencyHistogram(),
  };
}

process.on('message', (command: SseCommand) => {
  const reply = (value: SseReply) => process.send!(value);
  switch (command.cmd) {
    case 'open':
      void openAll(command.baseUrl, command.subscribers, command.concurrency).then((r) => reply({ cmd: 'open', ...r }));
      break;
    case 'reset':
      reset();
      reply({ cmd: 'reset' });
      break;
    case 'stats':
      reply({ cmd: 'stats', ...stats() });
      break;
    case 'verify':
      reply({ cmd: 'verify', ...verify(command.expected) });
      break;
    case 'close':
      closeAll();
      reply({ cmd: 'close' });
      break;
  }
});
process.on('disconnect', () => process.exit(0));
