import { deserialize, serialize } from 'superjson';
import { field, isObject, send, unexpectedAnswer, type RawAnswer, type RequestOptions, type Transport } from './transport.js';
import { WorkspaceApiError, type ApiFieldIssue } from './workspace-api-error.js';

export const RPC_PATH = '/api/v1/rpc';

/** `/api/v1/rpc/<name>`: GET carries the superjson envelope in `?input=`, POST in the body. */
export async function callProcedure(t: Transport, name: string, method: 'GET' | 'POST', input: unknown, options?: RequestOptions): Promise<unknown> {
  const url = `${t.baseUrl}${RPC_PATH}/${name}`;
  const envelope = JSON.stringify(serialize(input));
  const answer =
    method === 'GET'
      ? await send(t, { method, url: input === undefined ? url : `${url}?input=${encodeURIComponent(envelope)}`, path: name }, options)
      : await send(t, { method, url, path: name, body: envelope }, options);
  const data = field(field(answer.body, 'result'), 'data');
  if (answer.status === 200 && isObject(data)) return deserialize(data as never);
  throw rpcError(answer, name);
}

/** The tRPC error envelope: `{"error":{"json":{"message","code","data":{"code","httpStatus","path","issues"?}}}}`. */
export function rpcError(answer: RawAnswer, name: string): WorkspaceApiError {
  const wire = field(answer.body, 'error');
  const error = isObject(wire) ? (deserialize(wire as never) as unknown) : undefined;
  const data = field(error, 'data');
  const code = field(data, 'code');
  if (typeof code !== 'string') return unexpectedAnswer(answer, name);
  const path = field(data, 'path');
  return new WorkspaceApiError({
    code,
    status: answer.status,
    message: String(field(error, 'message') ?? code),
    issues: field(data, 'issues') as ApiFieldIssue[] | undefined,
    requestId: answer.requestId,
    path: typeof path === 'string' ? path : name,
  });
}
