import type { Application } from 'express';
import { AppError } from '../errors/app-error';

/**
 * The parts of Express 5's router (the `router` package, 2.x) this reads: each layer's own path
 * matchers (pure functions; `layer.match` would overwrite the layer's params), the methods of a
 * route, and the stack of a mounted router. If a later router renames them, every path answers
 * 404 again instead of 405, and tests/integration/protocol-405.test.ts fails.
 */
interface StackLayer {
  slash?: boolean;
  matchers?: ((path: string) => false | { path: string })[];
  route?: { methods?: Record<string, boolean> };
  handle?: { stack?: StackLayer[] };
}

function matchedPart(layer: StackLayer, path: string): string | undefined {
  if (layer.slash) return '';
  for (const matcher of layer.matchers ?? []) {
    const match = matcher(path);
    if (match) return match.path;
  }
  return undefined;
}

function collectMethods(stack: StackLayer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    const matched = matchedPart(layer, path);
    if (matched === undefined) continue;
    if (layer.route) {
      for (const [method, served] of Object.entries(layer.route.methods ?? {})) if (served && method !== '_all') into.add(method.toUpperCase());
    } else if (Array.isArray(layer.handle?.stack)) {
      const rest = path.slice(matched.length);
      collectMethods(layer.handle.stack, rest.startsWith('/') ? rest : `/${rest}`, into);
    }
  }
}

/**
 * The methods the app's routes serve on `path`, read from its router so that a route added
 * anywhere is named at once (HEAD wherever GET is: Express answers it with the GET route).
 * Empty for a path no route serves. Walked only for requests no route took, which are rare.
 */
export function allowedMethodsOf(app: Application, path: string): string[] {
  const stack = (app as unknown as { router?: { stack?: StackLayer[] } }).router?.stack;
  const methods = new Set<string>();
  if (stack) collectMethods(stack, path, methods);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

/** The 405 for `method` on `path`, with the `Allow` header RFC 9110 §15.5.6 requires. */
export function methodNotAllowed(method: string, path: string, allowed: readonly string[]): AppError {
  const listed = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}` : allowed[0];
  return new AppError('METHOD_NOT_SUPPORTED', `${method} is not supported on ${path}: use ${listed}`, {
    headers: { Allow: allowed.join(', ') },
  });
}
