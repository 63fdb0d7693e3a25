import { createHash } from 'node:crypto';
import { z } from 'zod';
import { trustProxySetting } from './ratelimit/trust-proxy';
import { DEFAULT_FAILED_AUTH_PER_MINUTE } from './ratelimit/limits';

/**
 * SHA-256 of secrets that were published as defaults in this repository's history: anyone can
 * sign with them, so they are refused as SESSION_SECRET or TOKEN_SECRET in every mode.
 */
const PUBLISHED_SECRET_HASHES = new Set([
  '4c56aa29d6bf3cc04c073cd1b75d7e2e9039f99b828fb03e678f9e75433b5d2e', // the former development SESSION_SECRET
  '379730da19d9138e750cccb3e651a794990e60e48970174c7968d27d4d920d1a', // the former development TOKEN_SECRET
]);

function isPublishedSecret(value: string): boolean {
  return PUBLISHED_SECRET_HASHES.has(createHash('sha256').update(value, 'utf8').digest('hex'));
}

const jwtSecret = z.string().min(32, 'must be at least 32 characters')
  .refine((value) => !isPublishedSecret(value), 'is a value published in this repository: set 32 or more random characters');

const schema = z.object({
  /**
   * Unset (or `production`) runs with every safe default; only an explicit `development` or
   * `test` relaxes anything (isRelaxedMode). `production` also refuses the embedded database.
   */
  NODE_ENV: z.enum(['development', 'production', 'test']).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** A PostgreSQL URL; when absent the service runs on the embedded database. */
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
  EMBEDDED_DB_DIR: z.string().min(1).default('./data'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  /** How long a request waits for a database connection (or a new one's handshake) before a 503: fail fast while PostgreSQL is down. */
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3000),
  /**
   * PostgreSQL cancels a statement of a request running longer (0: never): also how soon a hung
   * node's requests give up (docs/scaling.md). Searches get 15 s; migrations and the CLI go without.
   */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(2000),
  /** The share of DB_POOL_MAX that the requests of one Citus node's workspaces may use at once (its bulkhead). */
  DB_NODE_POOL_SHARE: z.coerce.number().min(0.05).max(1).default(0.5),
  /** Consecutive failures (unreachable, timed out) of a node's requests that open its circuit breaker. */
  DB_BREAKER_FAILURES: z.coerce.number().int().min(1).max(1000).default(3),
  /**
   * An open breaker answers its node's workspaces 503 at once while a probe waits for the node;
   * after a probe the node refused, this long until the next (src/db/nodes).
   */
  DB_BREAKER_OPEN_MS: z.coerce.number().int().min(100).max(600_000).default(200),
  /**
   * The hottest reads as named prepared statements (src/db/prepared-statements.ts), and the hot
   * reads on a pool of their own (src/db/hot-reads.ts). `false` behind PgBouncer older than 1.21
   * in transaction mode.
   */
  DB_NAMED_STATEMENTS: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true').transform((value) => value === 'true'),
  /** Largest accepted request body, in bytes or with a unit (`1mb`, `512kb`). */
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)?$/i, 'must be a size such as 1mb or 524288').default('1mb'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** How long a verified API key is trusted before the database is asked again (revocation latency). */
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(1000).default(1000),
  /**
   * How long a verified key (and a member's access) is trusted while this instance hears the
   * database's change notifications, which drop an entry the moment it is revoked or changed.
   */
  KEY_CACHE_LIVE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** Signs member sessions (HS256). Absent: see resolveJwtSecrets (src/auth/secrets.ts). */
  SESSION_SECRET: jwtSecret.optional(),
  /** Signs playground test tokens (HS256). Absent: see resolveJwtSecrets (src/auth/secrets.ts). */
  TOKEN_SECRET: jwtSecret.optional(),
  /**
   * Checks every action's answer against its procedure's output schema and answers 500 on a
   * mismatch (logged). Costs a parse per answer: for tests and staging, off by default.
   */
  CHECK_OUTPUTS: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false').transform((value) => value === 'true'),
  /** Redis for state several instances must share (rate limits); optional. */
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' }).optional(),
  /** Requests per minute per API key for every tier, replacing the tiers' own limits; 0 turns rate limiting off. */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).optional(),
  /** Failed authentications per minute per client address before it gets 429 (0: no such limit). */
  RATE_LIMIT_FAILED_AUTH_PER_MINUTE: z.coerce.number().int().min(0).max(1_000_000).default(DEFAULT_FAILED_AUTH_PER_MINUTE),
  /** Which proxies may name the client's address in X-Forwarded-For; off by default. */
  TRUST_PROXY: trustProxySetting,
  /** When set, GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** How long SIGTERM waits for in-flight requests before closing anyway. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** How long one webhook POST may take, connection to last byte read; slower is a failed attempt. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(5000),
  /** How long a worker's claim on a delivery lasts (default 3x WEBHOOK_TIMEOUT_MS, at least 10 s): a killed worker's deliveries are retried after it. */
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).optional(),
  /** The first retry's delay; each later one doubles, capped at 4 hours, +-20% jitter. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(60_000),
  /** Attempts before a delivery is marked failed; 14 with the 1-minute base spans about 24 hours. */
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(14),
  /** An endpoint whose every attempt has failed for this long is disabled (and a webhook.disabled event recorded). */
  WEBHOOK_DISABLE_AFTER_MS: z.coerce.number().int().min(0).max(365 * 86_400_000).default(3 * 86_400_000),
  /** Deliveries in flight at once per worker process. */
  WEBHOOK_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** How often an idle worker looks for due deliveries (a full batch looks again at once). */
  WEBHOOK_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(500),
  /** Deliver webhooks inside the API process (default: yes on the embedded database, no with DATABASE_URL, where `npm run worker` does). */
  WEBHOOK_WORKER_IN_PROCESS: z.enum(['true', 'false'], { error: 'must be true or false' }).optional().transform((value) => (value === undefined ? undefined : value === 'true')),
  /** Deliver only for these workspaces (comma-separated ids); unset: every workspace. For a worker dedicated to a large workspace, and tests sharing one database. */
  WEBHOOK_WORKER_ORG_IDS: z.string().regex(/^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$/, 'must be comma-separated workspace ids').optional().transform((value) => value?.split(',')),
  /** The worker process's `GET /healthz` (src/webhooks/worker-health.ts), on HOST; 0 turns it off. */
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  /** Events (with their webhook deliveries and attempts) older than this many days are deleted, hourly. */
  EVENTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Deleted leads, contacts, clients, tasks and draft invoices can be restored for this many days; then they are purged for good, hourly. */
  TRASH_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** Each API key's request log (apiKeys.getRequests) is kept this many days, purged hourly; 0 records none (docs/decisions.md). */
  REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(7),
  /** `off` records no request in the per-key request log (benchmarks compare on and off); the purge still runs. */
  REQUEST_LOG: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  /** Imports a workspace may have waiting; one more upload is a 429 (docs/importing-and-exporting.md). */
  IMPORT_QUEUE_LIMIT: z.coerce.number().int().min(1).max(1000).default(10),
  /** Imports of one workspace that run at once (across every worker); the others wait queued. */
  IMPORT_MAX_RUNNING_PER_WORKSPACE: z.coerce.number().int().min(1).max(100).default(2),
  /** Imports one worker process runs at once. */
  IMPORT_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** How long a worker's claim on an import lasts without a committed batch: a killed worker's import is resumed after it. */
  IMPORT_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
  /** How often an idle import worker looks for work. */
  IMPORT_POLL_MS: z.coerce.number().int().min(5).max(60_000).default(1000),
  /** Rows written per batch (one transaction, which also moves the job's cursor). */
  IMPORT_BATCH_ROWS: z.coerce.number().int().min(1).max(10_000).default(1000),
  /** Run only these workspaces' imports (comma-separated ids); unset: every workspace. For tests sharing one database. */
  IMPORT_WORKER_ORG_IDS: z.string().regex(/^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$/, 'must be comma-separated workspace ids').optional().transform((value) => value?.split(',')),
  /** Ended imports, with their failed rows (personal data), are deleted after this many days. */
  IMPORTS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** A subscription stream quiet this long gets an `event: ping` (proxies and the client's inactivity timer see it alive). */
  SSE_PING_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /** Streams are ended after about this long (0: never), so clients reconnect, resume and spread over instances. */
  SSE_MAX_DURATION_MS: z.coerce.number().int().min(0).max(86_400_000).default(1_800_000),
  /** How often an open stream's key or token is checked again (a change announced by any instance is checked at once). */
  SSE_RECHECK_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  /** Each workspace's live feed also reads its events this often unwoken, bounding the delay a lost wake-up can cause. */
  LIVE_POLL_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
});

export type Config = z.output<typeof schema>;

/** WEBHOOK_LEASE_MS, or what it defaults to: three request timeouts, never under 10 s. */
export function webhookLeaseMs(config: Pick<Config, 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_LEASE_MS'>): number {
  return config.WEBHOOK_LEASE_MS ?? Math.max(3 * config.WEBHOOK_TIMEOUT_MS, 10_000);
}

/** WEBHOOK_WORKER_IN_PROCESS, or its default: in process on the embedded database only. */
export function runsWebhookWorkerInProcess(config: Pick<Config, 'WEBHOOK_WORKER_IN_PROCESS' | 'DATABASE_URL'>): boolean {
  return config.WEBHOOK_WORKER_IN_PROCESS ?? !config.DATABASE_URL;
}

export class ConfigError extends Error {}

export interface LoadConfigOptions {
  /**
   * The service signs member sessions and playground tokens: with DATABASE_URL, SESSION_SECRET and
   * TOKEN_SECRET are then required (unless NODE_ENV=development or test), and named with the rest.
   */
  signsTokens?: boolean;
}

/**
 * Parses the environment once. Every missing or invalid variable is named in one message (one
 * line for one variable; otherwise a line naming them all, then one line each), so a start never
 * has to be retried to learn the next one.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const result = schema.safeParse(cleaned);
  const problems = new Map<string, string>();
  const add = (name: string, message: string) => {
    if (!problems.has(name)) problems.set(name, message);
  };
  if (!result.success) {
    for (const issue of result.error.issues) add(String(issue.path[0]), issue.message);
  } else {
    const config = result.data;
    if (config.NODE_ENV === 'production' && !config.DATABASE_URL) {
      add('DATABASE_URL', 'required when NODE_ENV=production (the embedded database is for development)');
    }
    if (webhookLeaseMs(config) <= config.WEBHOOK_TIMEOUT_MS) {
      // A claim must outlive the request it covers, or a second worker could send the same delivery meanwhile.
      add('WEBHOOK_LEASE_MS', 'must be longer than WEBHOOK_TIMEOUT_MS');
    }
  }
  if (options.signsTokens) {
    // From the raw values, so a secret missing beside another variable's bad value is named too.
    const raw = cleaned as Partial<Record<'DATABASE_URL' | 'NODE_ENV' | 'SESSION_SECRET' | 'TOKEN_SECRET', string>>;
    for (const name of missingJwtSecrets(raw)) add(name, JWT_SECRET_REQUIRED);
  }
  if (problems.size > 0) throw new ConfigError(describeProblems(problems));
  return result.data!;
}

/** What a missing SESSION_SECRET or TOKEN_SECRET is told. */
export const JWT_SECRET_REQUIRED = 'required with DATABASE_URL (32 or more random characters, e.g. `openssl rand -hex 32`); only NODE_ENV=development or test runs without it';

/** The JWT secrets a process that signs tokens lacks: with DATABASE_URL, outside development and test, both are required. */
export function missingJwtSecrets(config: { DATABASE_URL?: string; NODE_ENV?: string; SESSION_SECRET?: string; TOKEN_SECRET?: string }): string[] {
  if (!config.DATABASE_URL || config.NODE_ENV === 'development' || config.NODE_ENV === 'test') return [];
  return (['SESSION_SECRET', 'TOKEN_SECRET'] as const).filter((name) => !config[name]);
}

/** One variable: one line. Several: a line naming them all, then one line each. */
export function describeProblems(problems: ReadonlyMap<string, string>): string {
  const entries = [...problems];
  if (entries.length === 1) return `Invalid environment variable ${entries[0]![0]}: ${entries[0]![1]}`;
  return [`Invalid environment variables ${entries.map(([name]) => name).join(', ')}:`, ...entries.map(([name, message]) => `  ${name}: ${message}`)].join('\n');
}

/** Only an explicit NODE_ENV=development or test turns off a safe default (random per-process secrets, webhooks to private addresses). */
export function isRelaxedMode(config: Pick<Config, 'NODE_ENV'>): boolean {
  return config.NODE_ENV === 'development' || config.NODE_ENV === 'test';
}
