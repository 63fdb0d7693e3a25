import type { Server, ServerResponse } from 'node:http';
import type { Logger } from '../logger';
import { createInFlightResponses } from './in-flight-responses';

export interface GracefulShutdownOptions {
  server: Server;
  logger: Logger;
  /** How long in-flight requests may take to finish before their connections are destroyed. */
  timeoutMs: number;
  /** Closes what the server used (the pool, the embedded database) once no request can use it. */
  closeResources: () => Promise<void>;
  /** How long closing the resources may take; a stuck pool must not keep the process alive. */
  resourcesTimeoutMs?: number;
  /** Ends what would never finish by itself (open subscription streams) as draining starts. */
  beforeDrain?: () => void;
}

/**
 * Drains the server: stops accepting connections, closes idle keep-alive connections at once,
 * answers what is in flight with `Connection: close`, destroys what remains after `timeoutMs`,
 * then closes the resources. Resolves to the exit code: 0 when every request finished and the
 * resources closed, 1 when the timeout cut requests off or closing failed. Calling it again
 * answers the same promise, so a second signal never starts a second shutdown.
 */
export function createGracefulShutdown(options: GracefulShutdownOptions) {
  const { server, logger, timeoutMs, closeResources, resourcesTimeoutMs = 5_000, beforeDrain } = options;
  const inFlight = createInFlightResponses();
  let draining: Promise<number> | undefined;

  // Prepended so the header is set before any handler could answer synchronously.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (draining) markClosing(res);
    inFlight.add(res);
  });

  async function drain(signal: string): Promise<number> {
    server.close();
    beforeDrain?.();
    server.closeIdleConnections();
    inFlight.forEach(markClosing);
    logger.info({ signal, inFlight: inFlight.size, timeoutMs }, 'shutting down: no longer accepting connections');

    // server.close() closes idle connections only once; a connection that finishes its response
    // later without `Connection: close` (headers sent before the signal) goes idle afterwards.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const timedOut = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        logger.warn({ inFlight: inFlight.size, timeoutMs }, 'shutdown timeout: destroying the remaining connections');
        server.closeAllConnections();
        resolve(true);
      }, timeoutMs);
      server.once('close', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    clearInterval(sweep);
    if (!timedOut) logger.info('every in-flight request finished');

    try {
      await withTimeout(closeResources(), resourcesTimeoutMs);
      logger.info('database closed');
    } catch (err) {
      logger.error({ err }, 'could not close the database');
      return 1;
    }
    return timedOut ? 1 : 0;
  }

  return function shutdown(signal: string): Promise<number> {
    if (draining) {
      logger.warn({ signal }, 'already shutting down: signal ignored');
      return draining;
    }
    draining = drain(signal);
    return draining;
  };
}

/** Once headers are out the connection's fate is sealed; until then `close` ends it after this answer. */
function markClosing(res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (err) => (clearTimeout(timer), reject(err)),
    );
  });
}
