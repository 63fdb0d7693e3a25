import type { Response } from 'express';
import type { AppError } from '../errors/app-error';
import { encodeStreamError, encodeStreamValue } from '../rpc/envelope';

/** tRPC v11's SSE response headers (its `sseHeaders`). */
export const EVENT_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
};

/** A reader this far behind (bytes the socket has not taken) is cut off; it reconnects and resumes from its last event. */
const MAX_UNSENT_BYTES = 4 * 1024 * 1024;

/**
 * One event fanned out to a thousand streams is one object handed to each: its frame is encoded
 * once, to bytes, and the same bytes are written to every socket (superjson's serialize and
 * JSON.stringify were most of a fan-out's CPU, then a new string per stream, each turned into bytes
 * again). Values are not changed after they are sent, so the frame stays right as long as the object lives.
 */
const frames = new WeakMap<object, { id: string | undefined; bytes: Buffer }>();
function valueFrame(value: unknown, id: string | undefined): Buffer {
  const encode = () => Buffer.from(`data: ${encodeStreamValue(value)}\n${id === undefined ? '' : `id: ${id}\n`}\n`);
  if (value === null || typeof value !== 'object') return encode();
  let frame = frames.get(value);
  if (frame === undefined || frame.id !== id) frames.set(value, (frame = { id, bytes: encode() }));
  return frame.bytes;
}

/**
 * One Server-Sent Events response in tRPC v11's framing: `connected` (the client's options),
 * values as default messages (with `id:` when tracked), `ping`, and one of `return` (done) or
 * `serialized-error` to end. Values sent before `start` wait, so the stream always opens with
 * `connected`.
 */
export class EventStream {
  private queued: (string | Buffer)[] | undefined = [];
  private ended = false;
  /** When something was last written: a ping is due only after a quiet interval. */
  lastWriteAt = Date.now();

  constructor(private readonly res: Response, private readonly path: string) {}

  get isEnded(): boolean {
    return this.ended || this.res.destroyed;
  }

  start(clientOptions: Record<string, unknown>): void {
    this.res.writeHead(200, EVENT_STREAM_HEADERS);
    // Headers and the first event leave in one packet, and every later frame at once (no Nagle delay).
    this.res.socket?.setNoDelay(true);
    this.res.cork();
    process.nextTick(() => this.res.uncork());
    // Written alone, the header block (about 80 pieces joined by Node) is flattened in place by
    // the socket write and its pieces freed: joined to the first frame, it stayed a rope of 2.6 KB
    // for the stream's life (bench:subscriptions, memory per idle subscriber).
    this.res.flushHeaders();
    const queued = this.queued ?? [];
    this.queued = undefined;
    this.write(`event: connected\ndata: ${JSON.stringify(clientOptions)}\n\n`);
    for (const frame of queued) this.write(frame);
    if (this.ended) this.res.end();
  }

  value(value: unknown, id?: string): void {
    this.frame(valueFrame(value, id));
  }

  ping(): void {
    this.frame('event: ping\ndata: \n\n');
  }

  /** A normal end: the official client stops and does not reconnect. */
  return(): void {
    this.frame('event: return\ndata: \n\n');
    this.close();
  }

  /** Ends with an error: a 5xx-family code makes the official client reconnect and resume, any other stops it. */
  error(error: AppError): void {
    this.frame(`event: serialized-error\ndata: ${encodeStreamError(error, this.path)}\n\n`);
    this.close();
  }

  /** Ends without a word, as a dropped connection: EventSource reconnects (shutdown, rotation). */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.queued) this.res.end();
  }

  private frame(text: string | Buffer): void {
    if (this.ended) return;
    if (this.queued) this.queued.push(text);
    else this.write(text);
  }

  private write(text: string | Buffer): void {
    this.lastWriteAt = Date.now();
    // The frames written in one tick (a feed's batch of events) leave in one packet, not one each.
    if (this.res.writableCorked === 0) {
      this.res.cork();
      process.nextTick(() => this.res.uncork());
    }
    this.res.write(text);
    if (this.res.writableLength > MAX_UNSENT_BYTES) {
      this.ended = true;
      this.res.destroy();
    }
  }
}
