import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';
import { clientErrorHandler } from './client-error';

/**
 * Largest request line plus headers Node accepts. Over it Node's parser refuses the request
 * before the app sees it, and by then it no longer holds the request line (a head that long spans
 * several reads), so the answer cannot follow the path's envelope (client-error.ts: a 431 in the
 * REST body). Raised far above the GET input limit (MAX_GET_INPUT_BYTES, at most 24 KiB
 * percent-encoded) so that an input many times over it, 100 KB say, still reaches the dispatcher
 * and gets its 400 in the envelope. The cost is bounded: a head must arrive within
 * headersTimeout (10 s), and Node holds it only while it parses.
 */
export const MAX_HEADER_SIZE = 512 * 1024;

/**
 * How long a client may take, in milliseconds; Node's defaults (60 s for the headers, 300 s for
 * the request, checked every 30 s) let a slow client (slow loris) hold a connection for minutes.
 * A refusal is a 408 in JSON (client-error.ts), then the connection is closed.
 */
export interface HttpServerTimeouts {
  /** The request line and headers must arrive within this, from the request's first byte (or the connection's start). */
  headersTimeout?: number;
  /** The whole request, body included, must arrive within this; the handler's own time does not count. */
  requestTimeout?: number;
  /**
   * An idle keep-alive connection is closed this long after its last answer. Behind a proxy that
   * reuses connections, make it longer than the proxy's idle timeout, or the proxy may send on a
   * connection this side is closing (a 502).
   */
  keepAliveTimeout?: number;
  /** How often the two request timeouts are checked: a slow client is cut off up to this much late. */
  connectionsCheckingInterval?: number;
}

/**
 * The two request timeouts allow a 1 MB body at about 35 KB/s. There is no socket inactivity
 * timeout (`server.timeout` stays 0): it would also cut a handler waiting on the database, which
 * DB_STATEMENT_TIMEOUT_MS bounds instead.
 */
export const DEFAULT_TIMEOUTS: Required<HttpServerTimeouts> = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};

/**
 * A constructor for `base`'s objects whose instances are born on `prototype` (which inherits from
 * base.prototype), or undefined where Node's own is kept. It calls `base` on the new object, as
 * Node's own subclasses did before ES classes: V8 builds such objects as fast as Node's own. (A
 * version with Reflect.construct kept a fifth as much alive and served fewer requests than
 * Express alone.) Node 20-24 define both as functions; if a later Node makes them classes, which
 * cannot be called so, Node's own constructors are kept.
 */
function bornOn<T extends abstract new (...args: never[]) => object>(base: T, prototype: object): T | undefined {
  if (Function.prototype.toString.call(base).startsWith('class')) return undefined;
  const construct = base as unknown as (this: object, ...args: unknown[]) => void;
  function Constructed(this: object, ...args: unknown[]): void {
    construct.apply(this, args);
  }
  Constructed.prototype = prototype;
  return Constructed as unknown as T;
}

/**
 * The HTTP server the service listens with (index.ts) and that tests start the same way.
 *
 * Express gives every request and response its own prototypes (app.request, app.response) with
 * Object.setPrototypeOf, and V8 makes each such object slow: at one connection a bare Express
 * route kept about 8 KB of every request alive into old space, where only the heap's full
 * collections free it. Node builds them on those prototypes here instead, so Express's call
 * changes nothing: the same route costs about half the CPU (docs/performance.md, "Requests born
 * on Express's prototypes").
 */
export function createHttpServer(app: Express, timeouts: HttpServerTimeouts = {}): Server {
  const { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval } = { ...DEFAULT_TIMEOUTS, ...timeouts };
  const AppRequest = bornOn<typeof IncomingMessage>(IncomingMessage, app.request);
  const AppResponse = bornOn<typeof ServerResponse>(ServerResponse, app.response);
  const server = createServer({
    maxHeaderSize: MAX_HEADER_SIZE,
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval,
    ...(AppRequest && AppResponse ? { IncomingMessage: AppRequest, ServerResponse: AppResponse } : {}),
  }, app);
  server.keepAliveTimeout = keepAliveTimeout;
  // What the parser refuses is answered in JSON rather than Node's bare status line.
  server.on('clientError', clientErrorHandler(MAX_HEADER_SIZE));
  return server;
}
