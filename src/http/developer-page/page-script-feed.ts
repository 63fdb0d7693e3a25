/**
 * A part of /developer/assets/developer.js: the live feed, the workspace's events as they commit
 * (events.onEvent), newest first. A browser's EventSource cannot send Authorization, so the feed
 * mints a stream token with the test token (POST /api/v1/stream-tokens) and shows it in `?token=`.
 * EventSource reconnects by itself after a dropped connection, sending Last-Event-ID; when it gives
 * up (a stream token older than its 5 minutes is refused on reconnection), the feed mints another
 * and resumes after the last event it showed, so none is missed. Plain browser JavaScript.
 */
export const FEED_SCRIPT = String.raw`var liveFeed = (function () {
  var MAX_SHOWN = 50;
  var RETRY_MS = 2000;
  var MAX_RETRIES = 5;
  var feed = { source: null, token: null, lastEventId: null, generation: 0, retry: null, retries: 0 };

  function $(id) { return document.getElementById(id); }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function status(text) { $('feed-status').textContent = text; }
  function problem(text) { $('feed-error').textContent = text; }
  function clock(date) { return date instanceof Date && !isNaN(date) ? date.toISOString().slice(11, 19) + ' UTC' : ''; }

  function stop() {
    feed.generation += 1;
    clearTimeout(feed.retry);
    if (feed.source) feed.source.close();
    feed.source = null;
  }

  // playgroundToken: the test token the page holds ({token, scopes}); the feed streams what it may read.
  function start(playgroundToken) {
    stop();
    feed.token = playgroundToken;
    feed.retries = 0;
    problem('');
    $('live-feed').hidden = false;
    if (playgroundToken.scopes.indexOf('events.read') === -1) {
      status('The feed needs events.read: choose Read for events under Test token scopes, then get a new test token.');
      return;
    }
    open(feed.generation).catch(function (e) { problem('The feed could not start: ' + e.message); });
  }

  async function open(generation) {
    status('Connecting…');
    var res;
    try {
      res = await fetch('/api/v1/stream-tokens', {
        method: 'POST',
        headers: { Authorization: 'Bearer ' + feed.token.token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ procedure: 'events.onEvent' }),
      });
    } catch (e) {
      // The service is unreachable (restarting, offline): try again, as EventSource itself would.
      if (generation === feed.generation) retryLater(generation, 'network error');
      return;
    }
    var body = await res.json().catch(function () { return {}; });
    if (generation !== feed.generation) return;
    if (res.status === 429 || res.status >= 500) { retryLater(generation, 'HTTP ' + res.status); return; }
    if (!res.ok) {
      var message = (body.error && body.error.message) || 'HTTP ' + res.status;
      status('Stopped.');
      problem('The feed could not start: ' + message + (res.status === 401 ? ' (get a new test token)' : ''));
      return;
    }
    // Resumes after the last event shown: the server sends what was missed first, then live ones.
    var input = JSON.stringify({ json: feed.lastEventId ? { lastEventId: feed.lastEventId } : {} });
    var source = new EventSource('/api/v1/rpc/events.onEvent?token=' + encodeURIComponent(body.token) + '&input=' + encodeURIComponent(input));
    feed.source = source;
    source.addEventListener('connected', function () {
      if (generation !== feed.generation) return;
      feed.retries = 0;
      problem('');
      status('Live since ' + clock(new Date()) + ': events appear here as they commit.');
    });
    source.addEventListener('message', function (message) {
      if (generation !== feed.generation) return;
      var event = superjsonView.deserialize(JSON.parse(message.data));
      feed.lastEventId = message.lastEventId || event.id;
      show(event);
    });
    source.addEventListener('serialized-error', function (message) {
      if (generation !== feed.generation) return;
      var error = superjsonView.deserialize(JSON.parse(message.data)) || {};
      var httpStatus = error.data && error.data.httpStatus;
      source.close();
      // A server-side failure is worth another try; a refusal (token expired, scope lost) is not.
      if (httpStatus >= 500) { retryLater(generation, error.message); return; }
      status('Stopped.');
      problem('The feed ended: ' + (error.message || 'error') + (httpStatus === 401 ? ' (get a new test token)' : ''));
    });
    source.addEventListener('error', function () {
      if (generation !== feed.generation) return;
      // CONNECTING: the browser reconnects by itself. CLOSED: it gave up; mint a new stream token.
      if (source.readyState === EventSource.CLOSED) retryLater(generation, 'connection refused');
      else status('Reconnecting…');
    });
  }

  function retryLater(generation, why) {
    if (feed.source) feed.source.close();
    // Only failures in a row count: a stream that opened again starts the count afresh.
    feed.retries += 1;
    if (feed.retries > MAX_RETRIES) {
      status('Stopped.');
      problem('The feed stopped after ' + MAX_RETRIES + ' failed reconnections (' + why + '): get a new test token to start it again.');
      return;
    }
    status('Reconnecting (' + why + ')…');
    feed.retry = setTimeout(function () {
      if (generation === feed.generation) open(generation).catch(function (e) { problem('The feed could not start: ' + e.message); });
    }, RETRY_MS);
  }

  function show(event) {
    var object = event.data && event.data.object;
    var item = el('li', 'feed-item');
    item.dataset.eventId = event.id;
    item.dataset.type = event.type;
    item.appendChild(el('span', 'feed-time', clock(event.createdAt)));
    item.appendChild(el('code', 'feed-type', event.type));
    item.appendChild(el('code', 'feed-object', object && object.id ? object.id : ''));
    var actor = event.actor || {};
    item.appendChild(el('span', 'feed-actor muted', actor.kind === 'playgroundToken' ? 'a test token' : actor.kind === 'apiKey' ? 'key ' + actor.id : actor.id || ''));
    var list = $('feed-list');
    list.insertBefore(item, list.firstChild);
    while (list.children.length > MAX_SHOWN) list.removeChild(list.lastChild);
    $('feed-empty').hidden = true;
  }

  return { start: start, stop: stop };
})();
`;
