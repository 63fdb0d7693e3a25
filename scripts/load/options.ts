import { parseArgs } from 'node:util';

export interface LoadOptions {
  seconds: number;
  clients: number;
  restartPostgres: boolean;
  /** Seconds into the run when PostgreSQL is stopped. */
  restartAt: number;
  /** Seconds PostgreSQL stays down. */
  downSeconds: number;
  /** The service must serve again (and never answer 5xx) this many seconds after PostgreSQL is back. */
  recoverySeconds: number;
  /** A request with no answer by then is counted as hung. */
  requestTimeoutMs: number;
  /** DB_ACQUIRE_TIMEOUT_MS given to the server; a 503 must come within it (plus slack). */
  acquireTimeoutMs: number;
  poolMax: number;
  /** After the run, how long unacknowledged creates keep being retried before they count as lost. */
  drainSeconds: number;
  adminUrl: string;
  keepDatabase: boolean;
}

export const USAGE = `usage: npm run test:load -- [--seconds 30] [--clients 50] [--restart-postgres [--restart-at S] [--down-seconds 3]]
  [--recovery-seconds 10] [--request-timeout-ms 10000] [--acquire-timeout-ms 3000] [--pool-max 10] [--drain-seconds 30] [--keep-database]
Creates and updates leads against a started server on a fresh database (TEST_DATABASE_URL's server, or
postgres://postgres@127.0.0.1:5432/postgres), then checks that every acknowledged create made exactly one lead.
--restart-postgres restarts the local cluster (pg_ctlcluster) in the middle of the run.`;

export function parseOptions(argv: string[]): LoadOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      seconds: { type: 'string', default: '30' },
      clients: { type: 'string', default: '50' },
      'restart-postgres': { type: 'boolean', default: false },
      'restart-at': { type: 'string' },
      'down-seconds': { type: 'string', default: '3' },
      'recovery-seconds': { type: 'string', default: '10' },
      'request-timeout-ms': { type: 'string', default: '10000' },
      'acquire-timeout-ms': { type: 'string', default: '3000' },
      'pool-max': { type: 'string', default: '10' },
      'drain-seconds': { type: 'string', default: '30' },
      'keep-database': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const seconds = positive('seconds', values.seconds);
  return {
    seconds,
    clients: positive('clients', values.clients),
    restartPostgres: values['restart-postgres'],
    restartAt: values['restart-at'] === undefined ? Math.round(seconds / 3) : positive('restart-at', values['restart-at']),
    downSeconds: positive('down-seconds', values['down-seconds']),
    recoverySeconds: positive('recovery-seconds', values['recovery-seconds']),
    requestTimeoutMs: positive('request-timeout-ms', values['request-timeout-ms']),
    acquireTimeoutMs: positive('acquire-timeout-ms', values['acquire-timeout-ms']),
    poolMax: positive('pool-max', values['pool-max']),
    drainSeconds: positive('drain-seconds', values['drain-seconds']),
    adminUrl: process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    keepDatabase: values['keep-database'],
  };
}

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, not ${JSON.stringify(value)}\n\n${USAGE}`);
  return n;
}
