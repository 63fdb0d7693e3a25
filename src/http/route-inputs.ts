import type { z } from 'zod';

/**
 * What each route of a router reads from the request, by `METHOD /path` as the router registers
 * it; `{}` for a route that reads nothing. tests/unit/input-bounds.test.ts walks the routers and
 * these schemas, so a route that reads input without a bounded schema fails there.
 */
export type RouteInputs = Readonly<Record<string, Readonly<{ body?: z.ZodType; params?: z.ZodType; query?: z.ZodType }>>>;
