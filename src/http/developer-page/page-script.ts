import { DECODE_SCRIPT } from './page-script-decode';
import { SCOPES_SCRIPT } from './page-script-scopes';
import { FEED_SCRIPT } from './page-script-feed';

/**
 * /developer/assets/developer.js: sign-in (the session kept in sessionStorage, never a cookie),
 * the keys table and form, the playground, and the live feed of the workspace's events (started
 * with each test token; page-script-feed.ts). DOM built with textContent only (the CSP has no
 * 'unsafe-inline', and nothing the server sends is parsed as HTML).
 */
const PAGE_SCRIPT = String.raw`(function () {
  var SESSION_KEY = 'workspace-api.member-session';
  var state = { session: null, me: null, catalogue: [], resources: [], byName: {}, token: null, shown: 0 };
  // A key starts with nothing chosen; a test token with Read everywhere, so a first try cannot change data.
  var KEY_PICKER = { container: 'key-scopes', name: 'key-scope', initial: 'none' };
  var TOKEN_PICKER = { container: 'token-scopes', name: 'token-scope', initial: 'read' };

  function $(id) { return document.getElementById(id); }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function show(id, visible) { $(id).hidden = !visible; }
  function formatDate(iso) { return iso ? iso.slice(0, 16).replace('T', ' ') + ' UTC' : '—'; }

  async function api(path, options) {
    options = options || {};
    var headers = { Authorization: 'Bearer ' + (options.session || state.session) };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    var res = await fetch('/developer/api' + path, {
      method: options.method || 'GET',
      headers: headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    var body = await res.json().catch(function () { return {}; });
    if (!res.ok) {
      var err = new Error((body.error && body.error.message) || 'HTTP ' + res.status);
      err.status = res.status;
      throw err;
    }
    return body;
  }

  // ---- sign in
  async function signIn(session) {
    var me = await api('/me', { session: session });
    state.session = session;
    state.me = me;
    sessionStorage.setItem(SESSION_KEY, session);
    $('whoami-text').textContent = me.member.name + ' · ' + me.workspace.name + (me.developer ? ' · DEVELOPER' : '');
    show('whoami', true);
    show('sign-in', false);
    show('keys-section', true);
    show('playground', true);
    show('live-feed', true);
    var notices = [];
    if (!me.developer) notices.push('You can see the keys; creating and revoking them needs the DEVELOPER permission.');
    if (!me.developerApi) notices.push('This workspace lacks the DEVELOPER_API feature: keys cannot be created and test tokens are refused.');
    $('keys-notice').textContent = notices.join(' ');
    show('keys-notice', notices.length > 0);
    show('create-key', me.developer && me.developerApi);
    await Promise.all([loadKeys(), loadCatalogue()]);
  }

  function signOut() {
    sessionStorage.removeItem(SESSION_KEY);
    state.session = null; state.me = null; state.token = null;
    liveFeed.stop();
    location.reload();
  }

  // ---- keys
  async function loadKeys() {
    var body = await api('/keys');
    var tbody = $('keys-table').querySelector('tbody');
    tbody.replaceChildren();
    body.keys.forEach(function (key) { tbody.appendChild(keyRow(key)); });
    show('keys-empty', body.keys.length === 0);
  }

  function keyRow(key) {
    var tr = el('tr');
    tr.dataset.keyId = key.id;
    tr.appendChild(el('td', 'key-name', key.name));
    tr.appendChild(el('td', null)).appendChild(el('code', null, key.prefix));
    var scopes = el('td', 'key-scopes');
    key.scopes.forEach(function (s) { scopes.appendChild(el('span', 'chip', s)); });
    tr.appendChild(scopes);
    tr.appendChild(el('td', null, formatDate(key.createdAt)));
    tr.appendChild(el('td', null, key.expiresAt ? formatDate(key.expiresAt) : 'never'));
    tr.appendChild(el('td', null, key.lastUsedAt ? formatDate(key.lastUsedAt) : 'never'));
    var expired = key.expiresAt && Date.parse(key.expiresAt) <= Date.now();
    var status = key.revokedAt ? 'revoked ' + formatDate(key.revokedAt) : expired ? 'expired' : 'active';
    tr.appendChild(el('td', 'status ' + (key.revokedAt || expired ? 'off' : 'on'), status));
    var actions = el('td');
    if (!key.revokedAt && state.me.developer && state.me.developerApi) {
      var button = el('button', 'danger small', 'Revoke');
      button.type = 'button';
      // Two clicks, so a stray one cannot break an integration.
      button.addEventListener('click', async function () {
        if (button.dataset.armed !== 'yes') { button.dataset.armed = 'yes'; button.textContent = 'Confirm revoke'; return; }
        button.disabled = true;
        try { await api('/keys/' + encodeURIComponent(key.id) + '/revoke', { method: 'POST' }); await loadKeys(); }
        catch (e) { button.disabled = false; alertIn('keys-notice', e.message); }
      });
      actions.appendChild(button);
    }
    tr.appendChild(actions);
    return tr;
  }

  function alertIn(id, message) { $(id).textContent = message; show(id, true); }

  function renderPicker(picker) { scopePicker.render($(picker.container), state.resources, picker.name, picker.initial); }
  function chosenScopes(picker) { return scopePicker.chosen($(picker.container), state.resources); }

  async function createKey(event) {
    event.preventDefault();
    $('create-key-error').textContent = '';
    var expires = $('key-expires').value;
    var body = { name: $('key-name').value, scopes: chosenScopes(KEY_PICKER) };
    if (expires) body.expiresAt = new Date(expires).toISOString();
    try {
      var created = await api('/keys', { method: 'POST', body: body });
      $('new-secret-value').textContent = created.key.secret;
      $('copy-secret').textContent = 'Copy';
      show('new-secret', true);
      $('create-key-form').reset();
      renderPicker(KEY_PICKER);
      $('create-key').open = false;
      await loadKeys();
    } catch (e) {
      $('create-key-error').textContent = e.message;
    }
  }

  async function copySecret() {
    var text = $('new-secret-value').textContent;
    try { await navigator.clipboard.writeText(text); $('copy-secret').textContent = 'Copied'; }
    catch (e) {
      var range = document.createRange();
      range.selectNodeContents($('new-secret-value'));
      var selection = window.getSelection(); selection.removeAllRanges(); selection.addRange(range);
      $('copy-secret').textContent = 'Selected: press Ctrl+C';
    }
  }

  // ---- playground
  async function loadCatalogue() {
    var body = await api('/procedures');
    state.catalogue = body.routers;
    state.resources = body.resources;
    var select = $('procedure-select');
    select.replaceChildren();
    body.routers.forEach(function (group) {
      var optgroup = el('optgroup');
      optgroup.label = group.router;
      group.procedures.forEach(function (p) {
        state.byName[p.name] = p;
        var option = el('option', null, p.name + '  ·  ' + p.method + (p.deprecated ? '  ·  deprecated' : ''));
        option.value = p.name;
        optgroup.appendChild(option);
      });
      select.appendChild(optgroup);
    });
    renderPicker(KEY_PICKER);
    renderPicker(TOKEN_PICKER);
    if (state.byName['leads.getAll']) select.value = 'leads.getAll';
    selectProcedure();
  }

  function selectProcedure() {
    var p = state.byName[$('procedure-select').value];
    if (!p) return;
    $('proc-method').textContent = p.method;
    $('proc-method').className = 'badge ' + p.method.toLowerCase();
    $('proc-name').textContent = p.name;
    $('proc-description').textContent = p.description;
    $('proc-scope').textContent = p.scope;
    $('proc-schema').textContent = JSON.stringify(p.inputSchema, null, 2);
    show('proc-deprecated', !!p.deprecated);
    if (p.deprecated) {
      $('proc-deprecation').textContent = 'Deprecated since ' + p.deprecated.since + '; stops answering on ' + p.deprecated.sunset +
        (p.deprecated.replacement ? '; use ' + p.deprecated.replacement + ' instead.' : '.');
    }
    show('proc-deprecation', !!p.deprecated);
    // The catalogue composes the sample from the schema's examples (src/openapi/sample.ts).
    $('input-editor').value = JSON.stringify(p.sampleInput === undefined ? {} : p.sampleInput, null, 2);
    state.shown += 1; // an answer still on its way belongs to the previous procedure
    clearResult();
  }

  // An answer belongs to the procedure that gave it: switching procedure takes it away.
  function clearResult() {
    show('result', false);
    ['result-status', 'result-headers', 'result-raw', 'result-curl', 'send-error'].forEach(function (id) { $(id).textContent = ''; });
    $('result-decoded').replaceChildren();
    $('result-hint').textContent = '';
    show('result-hint', false);
  }

  async function getToken() {
    $('token-error').textContent = '';
    var scopes = chosenScopes(TOKEN_PICKER);
    if (scopes.length === 0) { $('token-error').textContent = 'Choose Read or Write for at least one resource.'; return; }
    var init = {
      method: 'POST',
      headers: { Authorization: 'Bearer ' + state.session, 'Content-Type': 'application/json' },
      body: JSON.stringify({ scopes: scopes }),
    };
    var res = await fetch('/api/v1/playground/token', init);
    var body = await res.json().catch(function () { return {}; });
    if (!res.ok) { $('token-error').textContent = (body.error && body.error.message) || 'HTTP ' + res.status; return; }
    state.token = body;
    $('token-status').textContent = 'Test token ready, valid until ' + formatDate(body.expiresAt) + '. Scopes: ' + body.scopes.join(', ');
    liveFeed.start(body);
  }

  function shellQuote(s) { return "'" + s.replace(/'/g, "'\\''") + "'"; }
  function curlFor(p, envelopeText) {
    var url = location.origin + '/api/v1/rpc/' + p.name;
    var parts = ['curl -sS'];
    if (p.method === 'GET') {
      parts.push('-G ' + shellQuote(url));
      if (envelopeText !== null) parts.push('--data-urlencode ' + shellQuote('input=' + envelopeText));
    } else {
      parts.push('-X POST ' + shellQuote(url), "-H 'Content-Type: application/json'", '--data ' + shellQuote(envelopeText === null ? '{"json":null}' : envelopeText));
    }
    parts.push('-H ' + shellQuote('Authorization: Bearer ' + state.token.token));
    return parts.join(' \\\n  ');
  }

  async function send() {
    $('send-error').textContent = '';
    var p = state.byName[$('procedure-select').value];
    if (!state.token) { $('send-error').textContent = 'Get a test token first.'; return; }
    var text = $('input-editor').value.trim();
    var envelopeText = null;
    if (text !== '') {
      try { envelopeText = JSON.stringify({ json: JSON.parse(text) }); }
      catch (e) { $('send-error').textContent = 'The input is not valid JSON: ' + e.message; return; }
    }
    var url = '/api/v1/rpc/' + p.name;
    var init = { method: p.method, headers: { Authorization: 'Bearer ' + state.token.token } };
    if (p.method === 'GET') {
      if (envelopeText !== null) url += '?input=' + encodeURIComponent(envelopeText);
    } else {
      init.headers['Content-Type'] = 'application/json';
      init.body = envelopeText === null ? '{"json":null}' : envelopeText;
    }
    var shown = state.shown;
    var res = await fetch(url, init);
    var raw = await res.text();
    if (shown !== state.shown) return;
    $('result-status').textContent = res.status + ' ' + res.statusText;
    $('result-status').className = res.ok ? 'ok' : 'bad';
    var headerLines = [];
    res.headers.forEach(function (value, name) { headerLines.push(name + ': ' + value); });
    $('result-headers').textContent = headerLines.sort().join('\n');
    var decoded, body = null;
    try {
      body = JSON.parse(raw);
      $('result-raw').textContent = JSON.stringify(body, null, 2);
      decoded = body.result ? superjsonView.deserialize(body.result.data) : body.error ? { error: superjsonView.deserialize(body.error) } : body;
    } catch (e) {
      $('result-raw').textContent = raw;
      decoded = raw;
    }
    var out = [];
    superjsonView.render(decoded, 0, out);
    $('result-decoded').replaceChildren.apply($('result-decoded'), out);
    $('result-curl').textContent = curlFor(p, envelopeText);
    var hint = res.status === 403 ? scopePicker.missingScopeHint(errorMessage(body), 'test token', 'under Test token scopes, then get a new test token (a key needs the same choice when you create it).') : null;
    $('result-hint').textContent = hint || '';
    show('result-hint', !!hint);
    show('result', true);
  }

  function errorMessage(body) {
    var error = body && body.error;
    if (!error) return null;
    return (error.json && error.json.message) || error.message || null;
  }

  function guard(fn, errorId) {
    return function (event) {
      Promise.resolve(fn(event)).catch(function (e) { $(errorId).textContent = e.message; });
    };
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('sign-in-form').addEventListener('submit', function (event) {
      event.preventDefault();
      $('sign-in-error').textContent = '';
      signIn($('session-input').value.trim()).catch(function (e) {
        sessionStorage.removeItem(SESSION_KEY);
        $('sign-in-error').textContent = 'Could not sign in: ' + e.message;
      });
    });
    $('sign-out').addEventListener('click', signOut);
    $('create-key-form').addEventListener('submit', guard(createKey, 'create-key-error'));
    $('copy-secret').addEventListener('click', copySecret);
    $('procedure-select').addEventListener('change', selectProcedure);
    $('get-token').addEventListener('click', guard(getToken, 'token-error'));
    $('send').addEventListener('click', guard(send, 'send-error'));
    var saved = sessionStorage.getItem(SESSION_KEY);
    if (saved) signIn(saved).catch(function () { sessionStorage.removeItem(SESSION_KEY); });
  });
})();
`;

export const DEVELOPER_SCRIPT = `${DECODE_SCRIPT}\n${SCOPES_SCRIPT}\n${FEED_SCRIPT}\n${PAGE_SCRIPT}`;
