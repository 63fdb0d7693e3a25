import superjson from 'superjson';
import { WorkspaceApiError, type ApiFieldIssue } from './workspace-api-error';

/**
 * The part of fetch the client uses. The body is read with `text()` and parsed here, so the
 * objects superjson walks always belong to this realm (a `json()` from another realm, as jest's
 * vm context sees Node's fetch, would leave Dates as strings).
 */
export type FetchLike = (
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; credentials?: 'omit' },
) => Promise<{ status: number; text(): Promise<string> }>;

export interface Transport {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
}

export interface RawAnswer {
  status: number;
  body: unknown;
  text: string;
}

/** One request with the key as a Bearer token; cookies are never sent (the spec forbids them). */
export async function send(t: Transport, method: 'GET' | 'POST', url: string, body?: string): Promise<RawAnswer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${t.apiKey}`, Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await t.fetch(url, { method, headers, body, credentials: 'omit' });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

/** `/api/v1/rpc/<name>`: GET carries the superjson envelope in `?input=`, POST in the body. */
export async function callProcedure(t: Transport, name: string, method: 'GET' | 'POST', input: unknown): Promise<unknown> {
  const url = `${t.baseUrl}/api/v1/rpc/${name}`;
  const envelope = JSON.stringify(superjson.serialize(input));
  const answer =
    method === 'GET'
      ? await send(t, 'GET', input === undefined ? url : `${url}?input=${encodeURIComponent(envelope)}`)
      : await send(t, 'POST', url, envelope);
  const data = field(field(answer.body, 'result'), 'data');
  if (answer.status === 200 && isObject(data)) return superjson.deserialize(data as never);
  throw rpcError(answer, name);
}

function rpcError(answer: RawAnswer, name: string): WorkspaceApiError {
  const wire = field(answer.body, 'error');
  const error = isObject(wire) ? (superjson.deserialize(wire as never) as unknown) : undefined;
  const data = field(error, 'data');
  const code = field(data, 'code');
  if (typeof code !== 'string') return unexpected(answer, name);
  const path = field(data, 'path');
  return new WorkspaceApiError({
    code,
    httpStatus: answer.status,
    message: String(field(error, 'message') ?? code),
    issues: field(data, 'issues') as ApiFieldIssue[] | undefined,
    path: typeof path === 'string' ? path : name,
  });
}

/** The REST list's error body: `{"error":{"code","message","issues"?}}`. */
export function restError(answer: RawAnswer, path: string): WorkspaceApiError {
  const error = field(answer.body, 'error');
  const code = field(error, 'code');
  if (typeof code !== 'string') return unexpected(answer, path);
  return new WorkspaceApiError({
    code,
    httpStatus: answer.status,
    message: String(field(error, 'message') ?? code),
    issues: field(error, 'issues') as ApiFieldIssue[] | undefined,
    path,
  });
}

function unexpected(answer: RawAnswer, path: string): WorkspaceApiError {
  const excerpt = answer.text.length > 200 ? `${answer.text.slice(0, 200)}...` : answer.text;
  return new WorkspaceApiError({ code: 'UNEXPECTED_RESPONSE', httpStatus: answer.status, message: `HTTP ${answer.status}: ${excerpt}`, path });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function field(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}
