import { isRetryableStatus, parseRetryAfter, retryDelayMs, sleep } from './retry-policy.js';
import { WorkspaceApiError } from './workspace-api-error.js';
import type { ByteStream } from './server-sent-events.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The part of a fetch Response the client reads. */
export interface FetchResponseLike {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  /** The body as a stream of bytes: only subscriptions read it (fetch's `Response.body`). */
  body?: ByteStream | null;
}

/**
 * The part of fetch the client uses (the global fetch by default). The body is read with `text()`
 * and parsed here, so the objects superjson walks always belong to this realm (a `json()` from
 * another realm, as jest's vm context sees Node's fetch, would leave Dates as strings).
 */
export type FetchLike = (
  url: string,
  init: { method: HttpMethod; headers: Record<string, string>; body?: string; signal?: AbortSignal; credentials?: 'omit' },
) => Promise<FetchResponseLike>;

/** Options of one call, the last argument of every method. */
export interface RequestOptions {
  /**
   * Writes only (POST, PUT, PATCH, DELETE): the key the service recognises a repeated write by. One is
   * made for every call when left out, and every retry of the call sends the same key, so a retried
   * write acts once. Reads ignore it.
   */
  idempotencyKey?: string;
  /** Aborts the call, retries and waits included; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** How long each attempt may take, answer body included; the client's `timeoutMs` by default. */
  timeoutMs?: number;
  /** Retries after the first attempt; the client's `maxRetries` by default. */
  maxRetries?: number;
}

export interface Transport {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
  maxRetries: number;
  timeoutMs: number;
}

export interface ApiRequest {
  method: HttpMethod;
  /** Absolute URL. */
  url: string;
  /** What a failure names: the procedure or the REST path. */
  path: string;
  /** JSON text. */
  body?: string;
  headers?: Record<string, string>;
}

export interface RawAnswer {
  status: number;
  headers: FetchResponseLike['headers'];
  body: unknown;
  text: string;
  requestId: string | undefined;
}

/**
 * One call: the key as a Bearer token, never cookies (the spec forbids them); an Idempotency-Key
 * on every write (the action endpoints' POST and the REST routes' POST, PUT, PATCH and DELETE all honour
 * it); then attempts until an answer that is not a 429 or 503, or until the retries run out. A
 * network failure or timeout (the request may have acted) is retried only when repeating it
 * cannot act twice: reads, and writes carrying an Idempotency-Key or an `If-Match`.
 */
export async function send(t: Transport, request: ApiRequest, options: RequestOptions = {}): Promise<RawAnswer> {
  const maxRetries = options.maxRetries ?? t.maxRetries;
  const timeoutMs = options.timeoutMs ?? t.timeoutMs;
  const headers: Record<string, string> = { Authorization: `Bearer ${t.apiKey}`, Accept: 'application/json', ...request.headers };
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  if (request.method !== 'GET') headers['Idempotency-Key'] = options.idempotencyKey ?? crypto.randomUUID();
  const replayable = request.method === 'GET' || 'Idempotency-Key' in headers || 'If-Match' in headers;

  for (let retry = 0; ; retry += 1) {
    let answer: RawAnswer;
    try {
      answer = await attempt(t, request, headers, timeoutMs, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      const failure = connectionError(error, timeoutMs, request.path);
      if (!replayable || retry >= maxRetries) throw failure;
      await sleep(retryDelayMs(retry + 1, undefined)!, options.signal);
      continue;
    }
    if (!isRetryableStatus(answer.status) || retry >= maxRetries) return answer;
    const delay = retryDelayMs(retry + 1, parseRetryAfter(answer.headers.get('retry-after')));
    if (delay === undefined) return answer;
    await sleep(delay, options.signal);
  }
}

async function attempt(t: Transport, request: ApiRequest, headers: Record<string, string>, timeoutMs: number, callerSignal?: AbortSignal): Promise<RawAnswer> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
  // Raced against the signal as well, so a FetchLike that ignores `signal` still stops waiting.
  return untilAborted(signal, async () => {
    const res = await t.fetch(request.url, { method: request.method, headers: { ...headers }, body: request.body, signal, credentials: 'omit' });
    const text = await res.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, body, text, requestId: res.headers.get('x-request-id') ?? undefined };
  });
}

function untilAborted<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function connectionError(error: unknown, timeoutMs: number, path: string): WorkspaceApiError {
  // Duck-typed: the error may come from another realm (jest's vm context, an iframe's fetch).
  const { name, message: reason } = (isObject(error) ? error : {}) as { name?: unknown; message?: unknown };
  const timedOut = name === 'TimeoutError';
  const message = timedOut ? `No answer within ${timeoutMs} ms` : `No answer: ${typeof reason === 'string' ? reason : String(error)}`;
  return new WorkspaceApiError({ code: timedOut ? 'TIMEOUT' : 'NETWORK_ERROR', status: 0, message, path, cause: error });
}

/** A failure whose body is not one of the service's error bodies (a proxy's page, say). */
export function unexpectedAnswer(answer: RawAnswer, path: string): WorkspaceApiError {
  const excerpt = answer.text.length > 200 ? `${answer.text.slice(0, 200)}...` : answer.text;
  return new WorkspaceApiError({ code: 'UNEXPECTED_RESPONSE', status: answer.status, message: `HTTP ${answer.status}: ${excerpt}`, requestId: answer.requestId, path });
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function field(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}
