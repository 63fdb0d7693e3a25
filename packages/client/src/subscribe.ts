import { deserialize, serialize } from 'superjson';
import { RPC_PATH, rpcError } from './rpc.js';
import { parseRetryAfter, sleep } from './retry-policy.js';
import { readServerSentEvents } from './server-sent-events.js';
import { field, isObject, unexpectedAnswer, type RawAnswer, type Transport } from './transport.js';
import { WorkspaceApiError } from './workspace-api-error.js';

export interface SubscriptionOptions {
  /** Stops the subscription: the iteration then rejects with the signal's reason (as an aborted call does). */
  signal?: AbortSignal;
  /**
   * Failed connections in a row (no answer, a 5xx or 429, a dropped stream) before the iteration
   * gives up with the last failure; unlimited by default, as EventSource. A connection that
   * opens resets the count.
   */
  maxReconnectAttempts?: number;
}

interface OpenOptions<T> extends SubscriptionOptions {
  /** Whether values carry an id to resume after (the subscription takes Last-Event-ID). */
  tracked: boolean;
  lastEventId?: string | null;
  /** What a value becomes once superjson has revived it. */
  revive(value: unknown): T;
}

/** The JSON-RPC number tRPC gives every 5xx-family error (its client reconnects on these). */
const PASSING_RPC_CODE = -32603;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** Thrown inside an attempt to end the subscription instead of reconnecting. */
class Final {
  constructor(readonly error: unknown) {}
}

/**
 * A subscription over Server-Sent Events, read with fetch (Node 20+, browsers, workers): an
 * AsyncIterable of its values. Every iteration opens its own connection with the key in
 * `Authorization`. It reconnects by itself after a dropped connection, a stream that ends
 * without `return`, a 5xx or 429 before the stream starts, a 5xx-family `serialized-error` or
 * nothing heard for `reconnectAfterInactivityMs`, waiting a backoff with full jitter (or the
 * `Retry-After`); a tracked subscription resumes after the last value it yielded (Last-Event-ID,
 * and `lastEventId` in the input, as tRPC's httpSubscriptionLink sends it), so none is missed
 * or repeated. It ends on `event: return`, and throws a WorkspaceApiError on any other error
 * (UNAUTHORIZED when the key is revoked, FORBIDDEN when it loses the scope, a 400 input).
 * Leaving the loop (`break`) closes the connection.
 */
export function openSubscription<T>(t: Transport, name: string, input: Record<string, unknown> | undefined, options: OpenOptions<T>): AsyncIterable<T> {
  return { [Symbol.asyncIterator]: () => run(t, name, input, options) };
}

async function* run<T>(t: Transport, name: string, input: Record<string, unknown> | undefined, options: OpenOptions<T>): AsyncGenerator<T, void, undefined> {
  const { signal: callerSignal, maxReconnectAttempts = Infinity } = options;
  let lastEventId = options.lastEventId ?? undefined;
  let failures = 0;
  for (;;) {
    callerSignal?.throwIfAborted();
    const attempt = new AbortController();
    const signal = callerSignal ? AbortSignal.any([callerSignal, attempt.signal]) : attempt.signal;
    let failure: (WorkspaceApiError & { rpcCode?: number }) | undefined;
    let retryAfterMs: number | undefined;
    let inactivity: ReturnType<typeof setTimeout> | undefined;
    let inactivityMs: number | undefined;
    const heard = () => {
      if (inactivityMs === undefined) return;
      clearTimeout(inactivity);
      inactivity = setTimeout(() => attempt.abort(new Error(`nothing heard for ${inactivityMs} ms`)), inactivityMs);
    };
    try {
      const resumed = options.tracked && lastEventId ? { ...input, lastEventId } : input;
      const url = `${t.baseUrl}${RPC_PATH}/${name}${resumed === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(serialize(resumed)))}`}`;
      const headers: Record<string, string> = { Authorization: `Bearer ${t.apiKey}`, Accept: 'text/event-stream' };
      if (options.tracked && lastEventId) headers['Last-Event-ID'] = lastEventId;
      // Until the answer's head arrives, an attempt may take timeoutMs; the stream itself has no end.
      const connecting = setTimeout(() => attempt.abort(Object.assign(new Error(`No answer within ${t.timeoutMs} ms`), { name: 'TimeoutError' })), t.timeoutMs);
      const res = await t.fetch(url, { method: 'GET', headers, signal, credentials: 'omit' }).finally(() => clearTimeout(connecting));
      const requestId = res.headers.get('x-request-id') ?? undefined;
      if (res.status !== 200) {
        const text = await res.text();
        const answer: RawAnswer = { status: res.status, headers: res.headers, body: parseJson(text), text, requestId };
        const error = rpcError(answer, name);
        if (res.status !== 429 && res.status < 500) throw new Final(error);
        failure = error;
        retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      } else {
        if (!res.body) throw new Final(new TypeError('The fetch in use gives no body stream: subscribe needs one (the global fetch of Node 20+ and browsers does)'));
        if (!/^text\/event-stream\b/i.test(res.headers.get('content-type') ?? '')) {
          // A 200 that is not the stream (a proxy's page): reconnecting would only get it again.
          const text = await res.text();
          throw new Final(unexpectedAnswer({ status: res.status, headers: res.headers, body: undefined, text, requestId }, name));
        }
        for await (const message of readServerSentEvents(res.body)) {
          heard();
          if (message.event === 'connected') {
            failures = 0;
            const ms = field(parseJson(message.data), 'reconnectAfterInactivityMs');
            inactivityMs = typeof ms === 'number' && ms > 0 ? ms : undefined;
            heard();
          } else if (message.event === 'return') {
            return;
          } else if (message.event === 'serialized-error') {
            const error = streamError(message.data, name, requestId);
            if (!isPassing(error)) throw new Final(error);
            failure = error;
            break;
          } else if (message.event === 'message') {
            const value = options.revive(deserialize(JSON.parse(message.data) as never));
            if (message.id) lastEventId = message.id;
            // A fetch whose body ignores the signal would otherwise go on yielding after an abort.
            callerSignal?.throwIfAborted();
            yield value;
          }
          // `ping`, and any event this client does not know, only prove the connection alive.
        }
        failure ??= new WorkspaceApiError({ code: 'NETWORK_ERROR', status: 0, message: 'The stream ended without `return`', requestId, path: name });
      }
    } catch (error) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (error instanceof Final) throw error.error;
      failure = connectionError(error, name);
    } finally {
      clearTimeout(inactivity);
      attempt.abort();
    }
    failures += 1;
    if (failures > maxReconnectAttempts) throw failure;
    const bound = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (failures - 1));
    await sleep(retryAfterMs ?? Math.floor(Math.random() * bound), callerSignal);
  }
}

/** A 5xx-family error passes: the service or its database is briefly unwell, or the instance is stopping. */
function isPassing(error: WorkspaceApiError & { rpcCode?: number }): boolean {
  return error.status >= 500 || error.rpcCode === PASSING_RPC_CODE;
}

/** `event: serialized-error`: the error shape, superjson-serialised. */
function streamError(data: string, name: string, requestId: string | undefined): WorkspaceApiError & { rpcCode?: number } {
  const wire = parseJson(data);
  const shape = isObject(wire) ? (deserialize(wire as never) as unknown) : undefined;
  const details = field(shape, 'data');
  const code = field(details, 'code');
  const status = field(details, 'httpStatus');
  const rpcCode = field(shape, 'code');
  const path = field(details, 'path');
  return Object.assign(
    new WorkspaceApiError({
      code: typeof code === 'string' ? code : 'UNEXPECTED_RESPONSE',
      status: typeof status === 'number' ? status : 0,
      message: String(field(shape, 'message') ?? `The stream ended with an error: ${data.slice(0, 200)}`),
      requestId,
      path: typeof path === 'string' ? path : name,
    }),
    { rpcCode: typeof rpcCode === 'number' ? rpcCode : undefined },
  );
}

function connectionError(error: unknown, name: string): WorkspaceApiError {
  if (error instanceof WorkspaceApiError) return error;
  const { name: kind, message } = (isObject(error) ? error : {}) as { name?: unknown; message?: unknown };
  return new WorkspaceApiError({
    code: kind === 'TimeoutError' ? 'TIMEOUT' : 'NETWORK_ERROR',
    status: 0,
    message: typeof message === 'string' ? message : String(error),
    path: name,
    cause: error,
  });
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

