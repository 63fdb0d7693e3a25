import type { Db } from '../db/knex';
import type { Logger } from '../logger';
import { insertBatch, type NewKeyRequest } from '../db/api-key-requests';
import { requestLogId } from './request-id';

/** A finished request of an API key, as the HTTP edge saw it (request-log.ts). */
export type KeyRequestEntry = NewKeyRequest;

export interface KeyRequestRecorder {
  /** Takes the entry into memory: never waits, never throws. */
  record(entry: KeyRequestEntry): void;
  /** Writes everything buffered now (tests; the shutdown). */
  flush(): Promise<void>;
  /** Stops the timer and flushes what it can within `withinMs`; the rest is dropped (counted). */
  stop(withinMs?: number): Promise<void>;
  stats(): { buffered: number; written: number; dropped: number; failedFlushes: number };
}

export interface RecorderOptions {
  db: Db;
  logger: Logger;
  /** A flush at least this often while anything is buffered. */
  intervalMs?: number;
  /** Rows per insert; a buffer this full is flushed at once. */
  batchSize?: number;
  /** Rows held at most (about 200 bytes each); one more is dropped and counted. */
  maxBuffered?: number;
  /** At most one warning per this long, however many drops or failures. */
  warnEveryMs?: number;
}

/** Error classes of PostgreSQL that retrying the same rows cannot mend (bad data, constraint, schema). */
const PERMANENT_ERROR = /^(22|23|42)/;

/**
 * The request log's writer: requests are pushed to an in-memory buffer as their answers finish
 * and written by one background flush at a time (one insert of up to `batchSize` requests, stored
 * as a row per key, every `intervalMs` or as soon as a batch is full), so the request path never waits on the
 * database and a flush never holds more than one pool connection. The database slow or down: a
 * flush fails (its statement timeout, the pool's acquire timeout), its rows go back to the front
 * of the buffer, and the buffer, bounded, drops the newest rows past `maxBuffered`, counting them.
 * A crash loses what is buffered: at most about one interval's requests (docs/calling-the-api.md, "Each key's request log").
 */
export function createKeyRequestRecorder(options: RecorderOptions): KeyRequestRecorder {
  const { db, logger, intervalMs = 1000, batchSize = 500, maxBuffered = 20_000, warnEveryMs = 60_000 } = options;
  let buffer: KeyRequestEntry[] = [];
  let flushing: Promise<void> | undefined;
  let stopped = false;
  let written = 0;
  let dropped = 0;
  let failedFlushes = 0;
  let lastWarnAt = -Infinity;
  let unreported = { dropped: 0, failures: 0 };

  function warnAtMostNow(err?: unknown): void {
    const now = Date.now();
    if (now - lastWarnAt < warnEveryMs) return;
    lastWarnAt = now;
    logger.warn({ err, ...unreported, buffered: buffer.length }, 'request log: rows not written yet or dropped');
    unreported = { dropped: 0, failures: 0 };
  }

  function drop(count: number): void {
    dropped += count;
    unreported.dropped += count;
    warnAtMostNow();
  }

  /** Writes the buffer's first `count` rows; false when the insert failed (the rows kept or dropped). */
  async function writeOneBatch(count: number): Promise<boolean> {
    const batch = buffer.length <= count ? buffer : buffer.slice(0, count);
    buffer = batch === buffer ? [] : buffer.slice(count);
    const ids = batch.map((entry) => requestLogId(entry.atMs));
    try {
      await insertBatch(db, batch, ids);
      written += batch.length;
      return true;
    } catch (err) {
      failedFlushes += 1;
      unreported.failures += 1;
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && PERMANENT_ERROR.test(code)) drop(batch.length);
      else {
        // Tried again at the next flush, ahead of newer rows; what no longer fits is dropped.
        const room = Math.max(0, maxBuffered - buffer.length);
        if (room < batch.length) drop(batch.length - room);
        buffer = batch.slice(0, room).concat(buffer);
      }
      warnAtMostNow(err);
      return false;
    }
  }

  /**
   * The rows buffered when it starts (`wholeBatches`: only as many as fill whole batches), in
   * batches, until they are written or one batch fails (the next interval tries again). Rows that
   * arrive meanwhile wait for a full batch or the interval: draining them at once would keep a busy
   * service writing a stream of small transactions, each costing the database about what 500 rows cost.
   */
  async function writeBuffered(wholeBatches: boolean): Promise<boolean> {
    let rows = wholeBatches ? buffer.length - (buffer.length % batchSize) : buffer.length;
    while (rows > 0) {
      const count = Math.min(rows, batchSize);
      if (!(await writeOneBatch(count))) return false;
      rows -= count;
    }
    return true;
  }

  function flush(wholeBatches = false): Promise<void> {
    // Cleared in the callbacks, which always run after this assignment (a flush of nothing included).
    flushing ??= writeBuffered(wholeBatches).then(
      (written) => {
        flushing = undefined;
        // A full batch arrived during the flush (the record path saw `flushing` and left it): write it now.
        // After a failure the interval alone retries, so a database that is down is not asked at request rate.
        if (written && !stopped && buffer.length >= batchSize) void flush(true);
      },
      () => {
        flushing = undefined;
      },
    );
    return flushing;
  }

  const timer = setInterval(() => {
    if (buffer.length > 0 && !flushing) void flush();
  }, intervalMs);
  // The writer never keeps the process alive on its own.
  timer.unref();

  return {
    record(entry) {
      if (stopped) return;
      if (buffer.length >= maxBuffered) {
        drop(1);
        return;
      }
      buffer.push(entry);
      if (buffer.length === batchSize && !flushing) void flush(true);
    },
    async flush() {
      // A flush in flight may have started before the caller's rows arrived: then once more.
      if (flushing) await flushing;
      await flush();
    },
    async stop(withinMs = 2000) {
      stopped = true;
      clearInterval(timer);
      let timeout: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timeout = setTimeout(resolve, withinMs);
      });
      const drain = (async () => {
        if (flushing) await flushing;
        await flush();
      })();
      await Promise.race([drain, deadline]);
      clearTimeout(timeout);
      if (buffer.length > 0) drop(buffer.length);
      buffer = [];
    },
    stats: () => ({ buffered: buffer.length, written, dropped, failedFlushes }),
  };
}
