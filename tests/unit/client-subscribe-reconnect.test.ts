import superjson from 'superjson';
import { createWorkspaceClient, WorkspaceApiError, type FetchLike } from '../../packages/client/src';

/**
 * events.subscribe against scripted answers (a fake fetch): what it does on each way a stream
 * can end. The real service's streams are in tests/integration/client-subscribe.test.ts.
 */
type Answer = { status: number; text?: string; frames?: string[]; headers?: Record<string, string> };

function scripted(answers: Answer[]) {
  const requests: { url: string; headers: Record<string, string> }[] = [];
  const fetch: FetchLike = async (url, init) => {
    requests.push({ url, headers: init.headers });
    const answer = answers.shift();
    if (!answer) throw new Error('no more scripted answers');
    if (answer.status === 0) throw new TypeError('fetch failed');
    const encoder = new TextEncoder();
    const frames = [...(answer.frames ?? [])];
    const headers: Record<string, string> = { 'content-type': answer.status === 200 ? 'text/event-stream' : 'application/json', ...answer.headers };
    return {
      status: answer.status,
      headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
      text: async () => answer.text ?? '',
      body: {
        getReader: () => ({
          read: async () => (frames.length > 0 ? { done: false, value: encoder.encode(frames.shift()!) } : { done: true }),
          cancel: async () => undefined,
          releaseLock: () => undefined,
        }),
      },
    };
  };
  return { requests, client: createWorkspaceClient({ baseUrl: 'http://api.test', apiKey: 'wsk_test', fetch }) };
}

const CONNECTED = 'event: connected\ndata: {"reconnectAfterInactivityMs":30000}\n\n';
const event = (id: string, type = 'task.created') =>
  `data: ${JSON.stringify(superjson.serialize({ id, type, createdAt: new Date('2026-12-10T15:00:00.000Z'), orgId: 'org_1', actor: { kind: 'apiKey', id: 'key_1' }, data: { object: { id: 'task_1', dueAt: '2026-12-03T10:00:00.000Z' } } }))}\nid: ${id}\n\n`;
const streamError = (code: string, httpStatus: number, rpc: number) =>
  `event: serialized-error\ndata: ${JSON.stringify(superjson.serialize({ message: `${code} happened`, code: rpc, data: { code, httpStatus, path: 'events.onEvent' } }))}\n\n`;
const errorBody = (code: string, httpStatus: number, rpc: number) => JSON.stringify({ error: { json: { message: `${code} before the stream`, code: rpc, data: { code, httpStatus, path: 'events.onEvent' } } } });

const inputOf = (url: string) => superjson.deserialize(JSON.parse(new URL(url).searchParams.get('input')!));

async function collect<T>(iterable: AsyncIterable<T>): Promise<{ values: T[]; error?: unknown }> {
  const values: T[] = [];
  try {
    for await (const value of iterable) values.push(value);
  } catch (error) {
    return { values, error };
  }
  return { values };
}

describe('events.subscribe', () => {
  it('yields typed events with their date-times revived, and ends quietly on event: return', async () => {
    const { client, requests } = scripted([{ status: 200, frames: [CONNECTED, event('evt_1'), 'event: ping\ndata: \n\n', 'event: return\ndata: \n\n'] }]);
    const { values, error } = await collect(client.events.subscribe({ types: ['task.created'] }));

    expect(error).toBeUndefined();
    expect(values.map((e) => e.id)).toEqual(['evt_1']);
    expect(values[0]!.type).toBe('task.created');
    expect(values[0]!.data.object.dueAt).toEqual(new Date('2026-12-03T10:00:00.000Z'));
    expect(inputOf(requests[0]!.url)).toEqual({ types: ['task.created'] });
    expect(requests[0]!.headers).toMatchObject({ Authorization: 'Bearer wsk_test', Accept: 'text/event-stream' });
    expect(requests[0]!.headers['Last-Event-ID']).toBeUndefined();
  });

  it('reconnects after a 5xx-family serialized-error and a dropped stream, resuming after the last event yielded', async () => {
    const { client, requests } = scripted([
      { status: 200, frames: [CONNECTED, event('evt_1'), streamError('SERVICE_UNAVAILABLE', 503, -32603)] },
      { status: 200, frames: [CONNECTED, event('evt_2')] }, // ends without `return`: dropped
      { status: 0 }, // no answer at all
      { status: 503, text: errorBody('SERVICE_UNAVAILABLE', 503, -32603), headers: { 'retry-after': '0' } },
      { status: 200, frames: [CONNECTED, event('evt_3'), 'event: return\ndata: \n\n'] },
    ]);
    const { values, error } = await collect(client.events.subscribe({ lastEventId: 'evt_0' }));

    expect(error).toBeUndefined();
    expect(values.map((e) => e.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(requests.map((r) => r.headers['Last-Event-ID'])).toEqual(['evt_0', 'evt_1', 'evt_2', 'evt_2', 'evt_2']);
    expect(requests.map((r) => inputOf(r.url))).toEqual([{ lastEventId: 'evt_0' }, { lastEventId: 'evt_1' }, { lastEventId: 'evt_2' }, { lastEventId: 'evt_2' }, { lastEventId: 'evt_2' }]);
  }, 15_000);

  it('stops with a WorkspaceApiError on any other serialized-error (a revoked key), without reconnecting', async () => {
    const { client, requests } = scripted([{ status: 200, frames: [CONNECTED, event('evt_1'), streamError('UNAUTHORIZED', 401, -32001)] }]);
    const { values, error } = await collect(client.events.subscribe());

    expect(values.map((e) => e.id)).toEqual(['evt_1']);
    expect(error).toBeInstanceOf(WorkspaceApiError);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: 'UNAUTHORIZED happened', path: 'events.onEvent' });
    expect(requests).toHaveLength(1);
  });

  it('stops with the error envelope of a 4xx before the stream (a key without events.read)', async () => {
    const { client, requests } = scripted([{ status: 403, text: errorBody('FORBIDDEN', 403, -32003), headers: { 'x-request-id': 'req_1' } }]);
    const { error } = await collect(client.events.subscribe());

    expect(error).toMatchObject({ name: 'WorkspaceApiError', code: 'FORBIDDEN', status: 403, requestId: 'req_1' });
    expect(requests).toHaveLength(1);
  });

  it('stops at once on a 200 that is not an event stream (a proxy\'s page), naming what came', async () => {
    const { client, requests } = scripted([{ status: 200, headers: { 'content-type': 'text/html' }, text: '<html>Sign in to the network</html>' }]);
    const { error } = await collect(client.events.subscribe());

    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 200, message: 'HTTP 200: <html>Sign in to the network</html>' });
    expect(requests).toHaveLength(1);
  });

  it('gives up after maxReconnectAttempts failures in a row, with the last one', async () => {
    const { client, requests } = scripted([{ status: 0 }, { status: 0 }, { status: 0 }]);
    const { error } = await collect(client.events.subscribe({ maxReconnectAttempts: 2 }));

    expect(error).toMatchObject({ code: 'NETWORK_ERROR', status: 0 });
    expect(requests).toHaveLength(3);
  }, 15_000);

  it('rejects with the signal\'s reason when aborted, yielding nothing after', async () => {
    const controller = new AbortController();
    const { client } = scripted([{ status: 200, frames: [CONNECTED, event('evt_1'), event('evt_2')] }]);
    const seen: string[] = [];
    const aborted = collect((async function* () {
      for await (const e of client.events.subscribe({ signal: controller.signal })) {
        seen.push(e.id);
        controller.abort(new Error('stop'));
        yield e;
      }
    })());
    expect((await aborted).error).toEqual(new Error('stop'));
    expect(seen).toEqual(['evt_1']);
  });
});
