import { z } from 'zod';
import { defineProcedure } from '../../src/rpc/define-procedure';
import { createRegistry, type Registry } from '../../src/rpc/registry';

/**
 * tRPC v11's code table, written out here (not imported from src/) so that the edge tests check
 * the service against the contract rather than against itself.
 */
export const TRPC_CODES = {
  BAD_REQUEST: { status: 400, number: -32600 },
  UNAUTHORIZED: { status: 401, number: -32001 },
  FORBIDDEN: { status: 403, number: -32003 },
  NOT_FOUND: { status: 404, number: -32004 },
  METHOD_NOT_SUPPORTED: { status: 405, number: -32005 },
  CONFLICT: { status: 409, number: -32009 },
  PAYLOAD_TOO_LARGE: { status: 413, number: -32013 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, number: -32015 },
  UNPROCESSABLE_CONTENT: { status: 422, number: -32022 },
  TOO_MANY_REQUESTS: { status: 429, number: -32029 },
  INTERNAL_SERVER_ERROR: { status: 500, number: -32603 },
  SERVICE_UNAVAILABLE: { status: 503, number: -32603 },
} as const;

export type TrpcCode = keyof typeof TRPC_CODES;

export interface RpcErrorJson {
  message: string;
  code: number;
  data: { code: string; httpStatus: number; path?: string; issues?: { path: (string | number)[]; message: string }[] };
}

/**
 * Asserts the whole error envelope `{"error":{"json":{message, code, data:{code, httpStatus, path}}}}`
 * and the HTTP status; answers the `json` part for further checks of the message.
 */
export function expectRpcError(res: { status: number; body: any }, code: TrpcCode, path: string | undefined): RpcErrorJson {
  const { status, number } = TRPC_CODES[code];
  expect({ status: res.status, code: res.body?.error?.json?.data?.code }).toEqual({ status, code });
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(Object.keys(res.body.error)).toEqual(['json']);
  const json = res.body.error.json as RpcErrorJson;
  expect(typeof json.message).toBe('string');
  expect(json.message.length).toBeGreaterThan(0);
  expect(json.code).toBe(number);
  expect(json.data.httpStatus).toBe(status);
  if (path === undefined) expect(json.data).not.toHaveProperty('path');
  else expect(json.data.path).toBe(path);
  return json;
}

/** A well-formed request body for leads.create (plain JSON, no meta). */
export function createLeadBody(name: string): string {
  return JSON.stringify({ json: { name, phone: '+442079460123' } });
}

/**
 * A registry of test-only procedures for the checks the real registry cannot show: a procedure
 * hidden from the API, one whose handler throws, one that records being called. The counters say
 * whether a handler ran. Scopes are real ones, because keys may only carry known scopes.
 */
export function createEdgeRegistry(): { registry: Registry; calls: Record<'hiddenRead' | 'hiddenWrite' | 'explode' | 'echo' | 'asyncCheck', number> } {
  const calls = { hiddenRead: 0, hiddenWrite: 0, explode: 0, echo: 0, asyncCheck: 0 };
  const registry = createRegistry([
    defineProcedure({
      name: 'edge.hiddenRead',
      method: 'GET',
      scope: 'leads.read',
      exposed: false,
      description: 'app-only read',
      input: z.strictObject({ id: z.string() }).optional(),
      output: z.unknown(),
      async handler() {
        calls.hiddenRead += 1;
        return { secret: 'app only' };
      },
    }),
    defineProcedure({
      name: 'edge.hiddenWrite',
      method: 'POST',
      scope: 'leads.delete',
      exposed: false,
      description: 'app-only write',
      input: z.strictObject({ id: z.string() }),
      output: z.unknown(),
      async handler() {
        calls.hiddenWrite += 1;
        return { done: true };
      },
    }),
    defineProcedure({
      name: 'edge.explode',
      method: 'GET',
      scope: 'leads.read',
      exposed: true,
      description: 'fails unexpectedly',
      input: z.undefined(),
      output: z.unknown(),
      async handler(): Promise<never> {
        calls.explode += 1;
        throw new Error('secret SQL detail: select * from api_keys');
      },
    }),
    defineProcedure({
      name: 'edge.echo',
      method: 'POST',
      scope: 'leads.update',
      exposed: true,
      description: 'answers its input',
      input: z.strictObject({ at: z.date(), count: z.number().int() }),
      output: z.unknown(),
      async handler({ input, ctx }) {
        calls.echo += 1;
        return { at: input.at, count: input.count, orgId: ctx.orgId };
      },
    }),
    // The dispatcher parses synchronously; a schema with an async refinement must still work.
    defineProcedure({
      name: 'edge.asyncCheck',
      method: 'POST',
      scope: 'leads.update',
      exposed: true,
      description: 'an input checked by an async refinement',
      input: z.strictObject({ name: z.string().refine(async (name) => name !== 'taken', 'that name is taken') }),
      output: z.unknown(),
      async handler({ input }) {
        calls.asyncCheck += 1;
        return { name: input.name };
      },
    }),
  ]);
  return { registry, calls };
}
