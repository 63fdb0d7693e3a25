/** Where the action endpoints live: `/api/v1/rpc/<router>.<procedure>`. */
export const RPC_PREFIX = '/api/v1/rpc';

/** The procedure name in an action path (an error's `data.path`, a route label); undefined elsewhere. */
export function procedurePathOf(path: string): string | undefined {
  return path.startsWith(`${RPC_PREFIX}/`) ? path.slice(RPC_PREFIX.length + 1) : undefined;
}
