/**
 * /developer/assets/developer.js, bundled from this file by esbuild (../page-assets.ts): sign-in
 * (the session kept in sessionStorage, never a cookie), the keys table and form, the playground,
 * and the live feed of the workspace's events (started with each test token; feed.ts). DOM built
 * with textContent only (the CSP has no 'unsafe-inline', and nothing the server sends is parsed as HTML).
 */
import type { CreatedKeyAnswer, ErrorBody, RolledKeyAnswer, KeysAnswer, KeyView, Me, PlaygroundToken, Procedure, ProcedureGroup, ProceduresAnswer, ScopeResource } from './api-types';
import * as superjsonView from './decode';
import { $, el, messageOf, show } from './dom';
import * as liveFeed from './feed';
import * as keyRoll from './key-roll';
import * as webhookTools from './webhook-tools';
import * as scopePicker from './scopes';
import { requestsButton, wireRequestLog } from './request-log';
import type { Level } from './scopes';

const SESSION_KEY = 'workspace-api.member-session';

interface PageState {
  session: string | null;
  me: Me | null;
  catalogue: ProcedureGroup[];
  resources: ScopeResource[];
  byName: Record<string, Procedure>;
  token: PlaygroundToken | null;
  /** Counts procedure switches: an answer that arrives after one belongs to the previous procedure. */
  shown: number;
}

const state: PageState = { session: null, me: null, catalogue: [], resources: [], byName: {}, token: null, shown: 0 };

interface Picker { container: string; name: string; initial: Level }
// A key starts with nothing chosen; a test token with Read everywhere, so a first try cannot change data.
const KEY_PICKER: Picker = { container: 'key-scopes', name: 'key-scope', initial: 'none' };
const TOKEN_PICKER: Picker = { container: 'token-scopes', name: 'token-scope', initial: 'read' };

function formatDate(iso: string | null | undefined): string { return iso ? iso.slice(0, 16).replace('T', ' ') + ' UTC' : '—'; }

class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

async function api<T>(path: string, options: { session?: string; method?: string; body?: unknown } = {}): Promise<T> {
  const headers: Record<string, string> = { Authorization: 'Bearer ' + (options.session || state.session || '') };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch('/developer/api' + path, {
    method: options.method || 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const body: unknown = await res.json().catch(() => ({}));
  if (!res.ok) {
    const error = (body as ErrorBody).error;
    throw new ApiError((error && error.message) || 'HTTP ' + res.status, res.status);
  }
  return body as T;
}

// ---- sign in
async function signIn(session: string): Promise<void> {
  const me = await api<Me>('/me', { session });
  state.session = session;
  state.me = me;
  sessionStorage.setItem(SESSION_KEY, session);
  $('whoami-text').textContent = me.member.name + ' · ' + me.workspace.name + (me.developer ? ' · DEVELOPER' : '');
  show('whoami', true);
  show('sign-in', false);
  show('keys-section', true);
  show('playground', true);
  show('live-feed', true);
  show('webhooks-section', true);
  const notices: string[] = [];
  if (!me.developer) notices.push('You can see the keys; creating and revoking them needs the DEVELOPER permission.');
  if (!me.developerApi) notices.push('This workspace lacks the DEVELOPER_API feature: keys cannot be created and test tokens are refused.');
  $('keys-notice').textContent = notices.join(' ');
  show('keys-notice', notices.length > 0);
  show('create-key', me.developer && me.developerApi);
  await Promise.all([loadKeys(), loadCatalogue()]);
}

function signOut(): void {
  sessionStorage.removeItem(SESSION_KEY);
  state.session = null; state.me = null; state.token = null;
  liveFeed.stop();
  webhookTools.stop();
  location.reload();
}

// ---- keys
async function loadKeys(): Promise<void> {
  const body = await api<KeysAnswer>('/keys');
  const tbody = $('keys-table', HTMLTableElement).tBodies[0]!;
  tbody.replaceChildren();
  body.keys.forEach((key) => { tbody.appendChild(keyRow(key)); });
  show('keys-empty', body.keys.length === 0);
}

function keyRow(key: KeyView): HTMLTableRowElement {
  const tr = el('tr');
  tr.dataset.keyId = key.id;
  tr.appendChild(el('td', 'key-name', key.name));
  tr.appendChild(el('td', null)).appendChild(el('code', null, key.prefix));
  const scopes = el('td', 'key-scopes');
  key.scopes.forEach((s) => { scopes.appendChild(el('span', 'chip', s)); });
  tr.appendChild(scopes);
  tr.appendChild(el('td', null, formatDate(key.createdAt)));
  tr.appendChild(el('td', null, key.expiresAt ? formatDate(key.expiresAt) : 'never'));
  tr.appendChild(el('td', null, key.lastUsedAt ? formatDate(key.lastUsedAt) : 'never'));
  const expired = !!key.expiresAt && Date.parse(key.expiresAt) <= Date.now();
  const status = key.revokedAt ? 'revoked ' + formatDate(key.revokedAt) : expired ? 'expired' : 'active';
  const statusCell = tr.appendChild(el('td', 'status ' + (key.revokedAt || expired ? 'off' : 'on'), status));
  const previous = keyRoll.previousSecretNote(key, formatDate);
  if (previous) statusCell.appendChild(previous);
  const actions = el('td');
  if (!key.revokedAt && !expired && state.me && state.me.developer && state.me.developerApi) actions.appendChild(keyRoll.rollControl(key, rollDeps));
  actions.appendChild(requestsButton(key, (path) => api(path)));
  if (!key.revokedAt && state.me && state.me.developer && state.me.developerApi) {
    const button = el('button', 'danger small', 'Revoke');
    button.type = 'button';
    // Two clicks, so a stray one cannot break an integration.
    button.addEventListener('click', async () => {
      if (button.dataset.armed !== 'yes') { button.dataset.armed = 'yes'; button.textContent = 'Confirm revoke'; return; }
      button.disabled = true;
      try { await api('/keys/' + encodeURIComponent(key.id) + '/revoke', { method: 'POST' }); await loadKeys(); }
      catch (e) { button.disabled = false; alertIn('keys-notice', messageOf(e)); }
    });
    actions.appendChild(button);
  }
  tr.appendChild(actions);
  return tr;
}

function alertIn(id: string, message: string): void { $(id).textContent = message; show(id, true); }
const rollDeps: keyRoll.RollDeps = {
  post: (path, body) => api<RolledKeyAnswer>(path, { method: 'POST', body }),
  formatDate,
  reload: loadKeys,
  alert: (message) => alertIn('keys-notice', message),
};

function renderPicker(picker: Picker): void { scopePicker.render($(picker.container), state.resources, picker.name, picker.initial); }
function chosenScopes(picker: Picker): string[] { return scopePicker.chosen($(picker.container), state.resources); }

async function createKey(event: Event): Promise<void> {
  event.preventDefault();
  $('create-key-error').textContent = '';
  const expires = $('key-expires', HTMLInputElement).value;
  const body: { name: string; scopes: string[]; expiresAt?: string } = { name: $('key-name', HTMLInputElement).value, scopes: chosenScopes(KEY_PICKER) };
  if (expires) body.expiresAt = new Date(expires).toISOString();
  try {
    const created = await api<CreatedKeyAnswer>('/keys', { method: 'POST', body });
    $('new-secret-value').textContent = created.key.secret;
    $('copy-secret').textContent = 'Copy';
    show('new-secret-note', false);
    show('new-secret', true);
    $('create-key-form', HTMLFormElement).reset();
    renderPicker(KEY_PICKER);
    $('create-key', HTMLDetailsElement).open = false;
    await loadKeys();
  } catch (e) {
    $('create-key-error').textContent = messageOf(e);
  }
}

async function copySecret(): Promise<void> {
  const text = $('new-secret-value').textContent ?? '';
  try { await navigator.clipboard.writeText(text); $('copy-secret').textContent = 'Copied'; }
  catch {
    const range = document.createRange();
    range.selectNodeContents($('new-secret-value'));
    const selection = window.getSelection();
    if (selection) { selection.removeAllRanges(); selection.addRange(range); }
    $('copy-secret').textContent = 'Selected: press Ctrl+C';
  }
}

// ---- playground
async function loadCatalogue(): Promise<void> {
  const body = await api<ProceduresAnswer>('/procedures');
  state.catalogue = body.routers;
  state.resources = body.resources;
  const select = $('procedure-select', HTMLSelectElement);
  select.replaceChildren();
  body.routers.forEach((group) => {
    const optgroup = el('optgroup');
    optgroup.label = group.router;
    group.procedures.forEach((p) => {
      state.byName[p.name] = p;
      const option = el('option', null, p.name + '  ·  ' + p.method + (p.deprecated ? '  ·  deprecated' : ''));
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

function selectProcedure(): void {
  const p = state.byName[$('procedure-select', HTMLSelectElement).value];
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
  $('input-editor', HTMLTextAreaElement).value = JSON.stringify(p.sampleInput === undefined ? {} : p.sampleInput, null, 2);
  state.shown += 1; // an answer still on its way belongs to the previous procedure
  clearResult();
}

// An answer belongs to the procedure that gave it: switching procedure takes it away.
function clearResult(): void {
  show('result', false);
  ['result-status', 'result-headers', 'result-raw', 'result-curl', 'send-error'].forEach((id) => { $(id).textContent = ''; });
  $('result-decoded').replaceChildren();
  $('result-hint').textContent = '';
  show('result-hint', false);
}

async function getToken(): Promise<void> {
  $('token-error').textContent = '';
  const scopes = chosenScopes(TOKEN_PICKER);
  if (scopes.length === 0) { $('token-error').textContent = 'Choose Read or Write for at least one resource.'; return; }
  const init: RequestInit = {
    method: 'POST',
    headers: { Authorization: 'Bearer ' + state.session, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scopes }),
  };
  const res = await fetch('/api/v1/playground/token', init);
  const body: unknown = await res.json().catch(() => ({}));
  if (!res.ok) {
    const error = (body as ErrorBody).error;
    $('token-error').textContent = (error && error.message) || 'HTTP ' + res.status;
    return;
  }
  const token = body as PlaygroundToken;
  state.token = token;
  $('token-status').textContent = 'Test token ready, valid until ' + formatDate(token.expiresAt) + '. Scopes: ' + token.scopes.join(', ');
  liveFeed.start(token);
  webhookTools.start(token);
}

function shellQuote(s: string): string { return "'" + s.replace(/'/g, "'\\''") + "'"; }
function curlFor(p: Procedure, token: PlaygroundToken, envelopeText: string | null): string {
  const url = location.origin + '/api/v1/rpc/' + p.name;
  const parts = ['curl -sS'];
  if (p.method === 'GET') {
    parts.push('-G ' + shellQuote(url));
    if (envelopeText !== null) parts.push('--data-urlencode ' + shellQuote('input=' + envelopeText));
  } else {
    parts.push('-X POST ' + shellQuote(url), "-H 'Content-Type: application/json'", '--data ' + shellQuote(envelopeText === null ? '{"json":null}' : envelopeText));
  }
  parts.push('-H ' + shellQuote('Authorization: Bearer ' + token.token));
  return parts.join(' \\\n  ');
}

/** An RPC answer: `{ result: { data } }` or `{ error }`, both superjson (or anything else a proxy sent). */
interface RpcAnswer {
  result?: { data: unknown };
  error?: unknown;
}

async function send(): Promise<void> {
  $('send-error').textContent = '';
  const p = state.byName[$('procedure-select', HTMLSelectElement).value];
  const token = state.token;
  if (!token) { $('send-error').textContent = 'Get a test token first.'; return; }
  if (!p) { $('send-error').textContent = 'Choose a procedure first.'; return; }
  const text = $('input-editor', HTMLTextAreaElement).value.trim();
  let envelopeText: string | null = null;
  if (text !== '') {
    try { envelopeText = JSON.stringify({ json: JSON.parse(text) }); }
    catch (e) { $('send-error').textContent = 'The input is not valid JSON: ' + messageOf(e); return; }
  }
  let url = '/api/v1/rpc/' + p.name;
  const headers: Record<string, string> = { Authorization: 'Bearer ' + token.token };
  const init: RequestInit = { method: p.method, headers };
  if (p.method === 'GET') {
    if (envelopeText !== null) url += '?input=' + encodeURIComponent(envelopeText);
  } else {
    headers['Content-Type'] = 'application/json';
    init.body = envelopeText === null ? '{"json":null}' : envelopeText;
  }
  const shown = state.shown;
  const res = await fetch(url, init);
  const raw = await res.text();
  if (shown !== state.shown) return;
  $('result-status').textContent = res.status + ' ' + res.statusText;
  $('result-status').className = res.ok ? 'ok' : 'bad';
  const headerLines: string[] = [];
  res.headers.forEach((value, name) => { headerLines.push(name + ': ' + value); });
  $('result-headers').textContent = headerLines.sort().join('\n');
  let decoded: unknown;
  let body: unknown = null;
  try {
    body = JSON.parse(raw);
    $('result-raw').textContent = JSON.stringify(body, null, 2);
    const answer = body as RpcAnswer; // a null or a number throws below, and shows as raw text
    decoded = answer.result ? superjsonView.deserialize(answer.result.data) : answer.error ? { error: superjsonView.deserialize(answer.error) } : answer;
  } catch {
    $('result-raw').textContent = raw;
    decoded = raw;
  }
  const out: superjsonView.Rendered = [];
  superjsonView.render(decoded, 0, out);
  $('result-decoded').replaceChildren(...out);
  $('result-curl').textContent = curlFor(p, token, envelopeText);
  const hint = res.status === 403 ? scopePicker.missingScopeHint(errorMessage(body), 'test token', 'under Test token scopes, then get a new test token (a key needs the same choice when you create it).') : null;
  $('result-hint').textContent = hint || '';
  show('result-hint', !!hint);
  show('result', true);
}

function errorMessage(body: unknown): string | null {
  const error = (body as { error?: { json?: { message?: string }; message?: string } } | null)?.error;
  if (!error) return null;
  return (error.json && error.json.message) || error.message || null;
}

function guard(fn: (event: Event) => Promise<void>, errorId: string): (event: Event) => void {
  return (event) => {
    fn(event).catch((e: unknown) => { $(errorId).textContent = messageOf(e); });
  };
}

document.addEventListener('DOMContentLoaded', () => {
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    $('sign-in-error').textContent = '';
    signIn($('session-input', HTMLTextAreaElement).value.trim()).catch((e: unknown) => {
      sessionStorage.removeItem(SESSION_KEY);
      $('sign-in-error').textContent = 'Could not sign in: ' + messageOf(e);
    });
  });
  $('sign-out').addEventListener('click', signOut);
  $('create-key-form').addEventListener('submit', guard(createKey, 'create-key-error'));
  $('copy-secret').addEventListener('click', () => { void copySecret(); });
  $('procedure-select').addEventListener('change', selectProcedure);
  $('get-token').addEventListener('click', guard(getToken, 'token-error'));
  $('send').addEventListener('click', guard(send, 'send-error'));
  webhookTools.init();
  wireRequestLog();
  const saved = sessionStorage.getItem(SESSION_KEY);
  if (saved) signIn(saved).catch(() => { sessionStorage.removeItem(SESSION_KEY); });
});
