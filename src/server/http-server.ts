import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { Express } from 'express';

/**
 * Largest request line plus headers Node accepts. Its default (16 KiB) is answered by Node's
 * parser with a bare 431, outside the envelope, before the app sees the request; raised above
 * the GET input limit (MAX_GET_INPUT_BYTES, at most 24 KiB percent-encoded) so that an input
 * over that limit gets our 400 instead.
 */
export const MAX_HEADER_SIZE = 64 * 1024;

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
 * changes nothing (BENCHMARKS.md, "Requests born on Express's prototypes").
 */
export function createHttpServer(app: Express): Server {
  const AppRequest = bornOn<typeof IncomingMessage>(IncomingMessage, app.request);
  const AppResponse = bornOn<typeof ServerResponse>(ServerResponse, app.response);
  return createServer({
    maxHeaderSize: MAX_HEADER_SIZE,
    ...(AppRequest && AppResponse ? { IncomingMessage: AppRequest, ServerResponse: AppResponse } : {}),
  }, app);
}
