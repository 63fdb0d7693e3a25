/**
 * The live feed: the workspace's events as they commit (events.onEvent), newest first. A browser's
 * EventSource cannot send Authorization, so the feed mints a stream token with the test token
 * (POST /api/v1/stream-tokens) and shows it in `?token=`. EventSource reconnects by itself after a
 * dropped connection, sending Last-Event-ID; when it gives up (a stream token older than its 5
 * minutes is refused on reconnection), the feed mints another and resumes after the last event it
 * showed, so none is missed.
 */
import type { ErrorBody, FeedEvent, PlaygroundToken } from './api-types';
import { deserialize } from './decode';
import { $, el, messageOf } from './dom';

const MAX_SHOWN = 50;
const RETRY_MS = 2000;
const MAX_RETRIES = 5;

interface FeedState {
  source: EventSource | null;
  token: PlaygroundToken | null;
  lastEventId: string | null;
  generation: number;
  retry: ReturnType<typeof setTimeout> | undefined;
  retries: number;
}

/** A tRPC error as the stream's `serialized-error` carries it, once decoded. */
interface StreamError {
  message?: string;
  data?: { httpStatus?: number };
}

const feed: FeedState = { source: null, token: null, lastEventId: null, generation: 0, retry: undefined, retries: 0 };

function status(text: string): void { $('feed-status').textContent = text; }
function problem(text: string): void { $('feed-error').textContent = text; }
function clock(date: unknown): string { return date instanceof Date && !isNaN(date.getTime()) ? date.toISOString().slice(11, 19) + ' UTC' : ''; }

export function stop(): void {
  feed.generation += 1;
  clearTimeout(feed.retry);
  if (feed.source) feed.source.close();
  feed.source = null;
}

// playgroundToken: the test token the page holds ({token, scopes}); the feed streams what it may read.
export function start(playgroundToken: PlaygroundToken): void {
  stop();
  feed.token = playgroundToken;
  feed.retries = 0;
  problem('');
  $('live-feed').hidden = false;
  if (playgroundToken.scopes.indexOf('events.read') === -1) {
    status('The feed needs events.read: choose Read for events under Test token scopes, then get a new test token.');
    return;
  }
  connect(feed.generation).catch((e: unknown) => { problem('The feed could not start: ' + messageOf(e)); });
}

async function connect(generation: number): Promise<void> {
  status('Connecting…');
  let res: Response;
  try {
    res = await fetch('/api/v1/stream-tokens', {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + feed.token!.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ procedure: 'events.onEvent' }),
    });
  } catch {
    // The service is unreachable (restarting, offline): try again, as EventSource itself would.
    if (generation === feed.generation) retryLater(generation, 'network error');
    return;
  }
  const body = (await res.json().catch(() => ({}))) as ErrorBody & { token?: string };
  if (generation !== feed.generation) return;
  if (res.status === 429 || res.status >= 500) { retryLater(generation, 'HTTP ' + res.status); return; }
  if (!res.ok) {
    const message = (body.error && body.error.message) || 'HTTP ' + res.status;
    status('Stopped.');
    problem('The feed could not start: ' + message + (res.status === 401 ? ' (get a new test token)' : ''));
    return;
  }
  // Resumes after the last event shown: the server sends what was missed first, then live ones.
  const input = JSON.stringify({ json: feed.lastEventId ? { lastEventId: feed.lastEventId } : {} });
  const source = new EventSource('/api/v1/rpc/events.onEvent?token=' + encodeURIComponent(body.token ?? '') + '&input=' + encodeURIComponent(input));
  feed.source = source;
  source.addEventListener('connected', () => {
    if (generation !== feed.generation) return;
    feed.retries = 0;
    problem('');
    status('Live since ' + clock(new Date()) + ': events appear here as they commit.');
  });
  source.addEventListener('message', (message) => {
    if (generation !== feed.generation) return;
    const event = deserialize(JSON.parse(message.data as string)) as FeedEvent;
    feed.lastEventId = message.lastEventId || event.id;
    show(event);
  });
  source.addEventListener('serialized-error', (message) => {
    if (generation !== feed.generation) return;
    const error = (deserialize(JSON.parse((message as MessageEvent<string>).data)) || {}) as StreamError;
    const httpStatus = error.data && error.data.httpStatus;
    source.close();
    // A server-side failure is worth another try; a refusal (token expired, scope lost) is not.
    if (httpStatus !== undefined && httpStatus >= 500) { retryLater(generation, error.message ?? 'error'); return; }
    status('Stopped.');
    problem('The feed ended: ' + (error.message || 'error') + (httpStatus === 401 ? ' (get a new test token)' : ''));
  });
  source.addEventListener('error', () => {
    if (generation !== feed.generation) return;
    // CONNECTING: the browser reconnects by itself. CLOSED: it gave up; mint a new stream token.
    if (source.readyState === EventSource.CLOSED) retryLater(generation, 'connection refused');
    else status('Reconnecting…');
  });
}

function retryLater(generation: number, why: string): void {
  if (feed.source) feed.source.close();
  // Only failures in a row count: a stream that opened again starts the count afresh.
  feed.retries += 1;
  if (feed.retries > MAX_RETRIES) {
    status('Stopped.');
    problem('The feed stopped after ' + MAX_RETRIES + ' failed reconnections (' + why + '): get a new test token to start it again.');
    return;
  }
  status('Reconnecting (' + why + ')…');
  feed.retry = setTimeout(() => {
    if (generation === feed.generation) connect(generation).catch((e: unknown) => { problem('The feed could not start: ' + messageOf(e)); });
  }, RETRY_MS);
}

function show(event: FeedEvent): void {
  const object = event.data && event.data.object;
  const item = el('li', 'feed-item');
  item.dataset.eventId = event.id;
  item.dataset.type = event.type;
  item.appendChild(el('span', 'feed-time', clock(event.createdAt)));
  item.appendChild(el('code', 'feed-type', event.type));
  item.appendChild(el('code', 'feed-object', object && object.id ? object.id : ''));
  const actor = event.actor || {};
  item.appendChild(el('span', 'feed-actor muted', actor.kind === 'playgroundToken' ? 'a test token' : actor.kind === 'apiKey' ? 'key ' + actor.id : actor.id || ''));
  const list = $('feed-list');
  list.insertBefore(item, list.firstChild);
  while (list.children.length > MAX_SHOWN) list.removeChild(list.lastChild!);
  $('feed-empty').hidden = true;
}
