import type { Express } from 'express';
import { createApp } from '../../src/app';
import { recordOutputMismatch } from './output-mismatches';
import type { Db } from '../../src/db/knex';
import type { HotReads } from '../../src/db/connect';
import { createLogger } from '../../src/logger';
import { createTestDb } from './test-app';
import type { RateLimiter } from '../../src/ratelimit/rate-limiter';
import { TEST_JWT_SECRETS } from './test-secrets';

export interface RequestLine {
  level: number;
  msg: string;
  reqId: string;
  method: string;
  route: string;
  path: string;
  status: number;
  durationMs: number;
  orgId?: string;
  keyId?: string;
  authKind?: string;
  [field: string]: unknown;
}

export interface ObservedApp {
  db: Db;
  app: Express;
  /** Everything the logger wrote, as written. */
  output(): string;
  /** The request lines written so far. */
  requestLines(): RequestLine[];
  /** Waits (up to 2 s) for the request line with this id: it is written when the answer closes. */
  lineFor(reqId: string): Promise<RequestLine>;
  close(): Promise<void>;
}

/** The real app with its log captured in memory at `level` (info by default). */
export function createObservedApp(options: { db?: Db; hotReads?: HotReads; metricsToken?: string; level?: string; rateLimiter?: RateLimiter } = {}): ObservedApp {
  const db = options.db ?? createTestDb();
  let written = '';
  const logger = createLogger(options.level ?? 'info', { destination: { write: (line: string) => void (written += line) } });
  const app = createApp({ db, hotReads: options.hotReads, logger, config: { ...TEST_JWT_SECRETS, NODE_ENV: 'test', CHECK_OUTPUTS: true, BODY_LIMIT: '1mb', KEY_CACHE_TTL_MS: 1000, METRICS_TOKEN: options.metricsToken }, rateLimiter: options.rateLimiter, onOutputMismatch: recordOutputMismatch });
  const requestLines = () =>
    written
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as RequestLine)
      .filter((line) => line.msg === 'request');
  return {
    db,
    app,
    output: () => written,
    requestLines,
    async lineFor(reqId) {
      const deadline = Date.now() + 2000;
      for (;;) {
        const line = requestLines().find((l) => l.reqId === reqId);
        if (line) return line;
        if (Date.now() > deadline) throw new Error(`no request line for ${reqId} in:\n${written}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () => db.destroy(),
  };
}
