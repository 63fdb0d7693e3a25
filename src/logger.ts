import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  /** `development` asks for human-readable output (when pino-pretty is installed); anything else is JSON. */
  nodeEnv?: string;
  /** Where lines go (stdout by default); tests pass an in-memory stream. */
  destination?: DestinationStream & { isTTY?: boolean };
}

/**
 * One JSON object per line on stdout, the shape log collectors expect. The request log never
 * carries headers or bodies; the redaction is a second guard for any future `req` field, and
 * drops a PostgreSQL error's `detail`, which quotes the values written ("Failing row contains
 * (...)", "Key (email)=(...) already exists"): the log keeps the SQL, its state and constraint.
 */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const destination = options.nodeEnv === 'development' ? (prettyStream(options.destination ?? process.stdout) ?? options.destination) : options.destination;
  return pino({ level, base: undefined, redact: ['req.headers.authorization', 'req.headers.cookie', 'err.detail'] }, destination);
}

/**
 * pino-pretty is a dev dependency: the production image does not have it, so it is loaded only
 * if resolvable. Its formatter is called in-process (no transport, so no worker thread is
 * started). Colour only for a terminal: piped to a file or a collector, codes would be noise.
 */
function prettyStream(out: { write(text: string): unknown; isTTY?: boolean }): DestinationStream | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pretty = require('pino-pretty') as typeof import('pino-pretty');
    const format = pretty.prettyFactory({ colorize: out.isTTY === true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
    return { write: (line: string) => void out.write(format(line)) };
  } catch {
    return undefined;
  }
}
