import type { Express, Request } from 'express';
import { RPC_PREFIX, procedurePathOf } from '../http/rpc-paths';

/** Longest procedure name copied into a log line; what callers put in the path is not trusted. */
const MAX_NAME_LENGTH = 128;

/** Label of a request no route matched (404s, 401s from router-level middleware): bounded cardinality. */
export const UNMATCHED = 'unmatched';
/** Metrics label of an action call naming no registered procedure. */
export const UNKNOWN_PROCEDURE = 'unknown';

export interface RouteLabels {
  /** Procedure name as requested (action endpoints), else `METHOD /route/:pattern`. */
  route: string;
  /** The same with unknown procedure names collapsed, so metrics cannot grow without bound. */
  metricRoute: string;
}

/** The path without its query string (which may carry input: never logged). */
export function pathOf(req: Request): string {
  const url = req.originalUrl ?? req.url;
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/**
 * Labels a finished request by the route pattern that matched, never by its raw URL. Patterns
 * are read from the app's router stack once (mount prefixes included): by the time an error
 * reaches the app's handler, Express has already reset `req.baseUrl` of nested routers.
 */
export function createRouteLabeller(app: Express, isProcedure: (name: string) => boolean) {
  let patterns: Map<unknown, string> | undefined;
  return function labelsOf(req: Request, path: string): RouteLabels {
    const name = path.startsWith(`${RPC_PREFIX}/`) || path === RPC_PREFIX ? (procedurePathOf(path) ?? '') : undefined;
    if (name !== undefined) {
      const route = name.length > MAX_NAME_LENGTH ? name.slice(0, MAX_NAME_LENGTH) : name;
      return { route, metricRoute: isProcedure(name) ? name : UNKNOWN_PROCEDURE };
    }
    const matched = req.route as { path: unknown } | undefined;
    if (!matched) return { route: UNMATCHED, metricRoute: UNMATCHED };
    patterns ??= routePatterns(app);
    const route = `${req.method} ${patterns.get(matched) ?? req.baseUrl + patternText(matched.path)}`;
    return { route, metricRoute: route };
  };
}

interface StackLayer {
  route?: { path: unknown };
  rawPath?: unknown;
  handle?: { stack?: StackLayer[] };
}

function routePatterns(app: Express): Map<unknown, string> {
  const found = new Map<unknown, string>();
  const visit = (stack: StackLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) found.set(layer.route, prefix + patternText(layer.route.path));
      else if (Array.isArray(layer.handle?.stack) && typeof layer.rawPath === 'string') {
        visit(layer.handle.stack, layer.rawPath === '/' ? prefix : prefix + layer.rawPath);
      }
    }
  };
  const root = (app as unknown as { router?: { stack?: StackLayer[] } }).router?.stack;
  if (root) visit(root, '');
  return found;
}

function patternText(path: unknown): string {
  return Array.isArray(path) ? path.join('|') : String(path);
}
