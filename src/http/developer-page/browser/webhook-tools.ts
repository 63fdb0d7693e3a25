/**
 * The webhooks section: the workspace's endpoints with their delivery figures (webhooks.getAll),
 * and per endpoint "Redeliver since" (webhooks.redeliver) and "Send test event"
 * (webhooks.sendTestEvent), each answer shown under its row. Calls go to the RPC endpoint with the
 * test token, as the playground's do: listing needs Read on webhooks, the buttons Write.
 */
import type { PlaygroundToken } from './api-types';
import { deserialize } from './decode';
import { $, el, messageOf, show } from './dom';

interface DeliveryStats {
  lastAttemptAt: Date | null;
  lastStatus: 'succeeded' | 'failed' | null;
  lastStatusCode: number | null;
  attempts24h: number;
  successRate24h: number | null;
}

interface Endpoint {
  id: string;
  url: string;
  enabled: boolean;
  events: string[];
  deliveryStats: DeliveryStats;
}

let token: PlaygroundToken | null = null;

/** The call's output, or throws its error's message. */
async function rpc<T>(name: string, method: 'GET' | 'POST', input?: unknown): Promise<T> {
  if (!token) throw new Error('Get a test token first.');
  const headers: Record<string, string> = { Authorization: 'Bearer ' + token.token };
  const init: RequestInit = { method, headers };
  let url = '/api/v1/rpc/' + name;
  if (method === 'POST') {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify({ json: input ?? null });
  } else if (input !== undefined) {
    url += '?input=' + encodeURIComponent(JSON.stringify({ json: input }));
  }
  const res = await fetch(url, init);
  const body = (await res.json().catch(() => null)) as { result?: { data: unknown }; error?: unknown } | null;
  if (body?.result) return deserialize(body.result.data) as T;
  const error = body?.error ? (deserialize(body.error) as { message?: string }) : null;
  throw new Error((error && error.message) || 'HTTP ' + res.status);
}

function statsText(stats: DeliveryStats): string {
  const last = stats.lastStatus === null ? 'no attempts yet'
    : stats.lastStatus + (stats.lastStatusCode === null ? '' : ' (' + stats.lastStatusCode + ')');
  const rate = stats.successRate24h === null ? 'no attempts in 24 h' : Math.round(stats.successRate24h * 100) + '% of ' + stats.attempts24h + ' in 24 h';
  return last + ' · ' + rate;
}

/** A local date-time input's value one hour ago: the default "since". */
function anHourAgo(): string {
  const d = new Date(Date.now() - 3_600_000 - new Date().getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}

function row(endpoint: Endpoint): HTMLTableRowElement {
  const tr = el('tr');
  tr.dataset.endpointId = endpoint.id;
  tr.append(el('td', null, endpoint.url), el('td', null, endpoint.enabled ? 'enabled' : 'disabled'), el('td', 'webhook-stats', statsText(endpoint.deliveryStats)));
  const tools = el('td', 'webhook-tools');
  const since = el('input', 'webhook-since');
  since.type = 'datetime-local';
  since.value = anHourAgo();
  since.setAttribute('aria-label', 'Redeliver events since');
  const redeliver = el('button', 'webhook-redeliver', 'Redeliver since');
  redeliver.type = 'button';
  const test = el('button', 'webhook-test', 'Send test event');
  test.type = 'button';
  const answer = el('p', 'webhook-answer');
  answer.setAttribute('role', 'status');
  const run = (work: () => Promise<string>) => async () => {
    answer.className = 'webhook-answer';
    answer.textContent = '…';
    try {
      answer.textContent = await work();
    } catch (e) {
      answer.className = 'webhook-answer error';
      answer.textContent = messageOf(e);
    }
  };
  redeliver.addEventListener('click', run(async () => {
    const when = new Date(since.value);
    if (isNaN(when.getTime())) throw new Error('Choose a date and time to redeliver from.');
    const { queued } = await rpc<{ queued: number }>('webhooks.redeliver', 'POST', { id: endpoint.id, since: when.toISOString() });
    return 'Queued ' + queued + ' event' + (queued === 1 ? '' : 's') + ' for delivery again.';
  }));
  test.addEventListener('click', run(async () => {
    const sent = await rpc<{ succeeded: boolean; statusCode: number | null; durationMs: number; responseExcerpt: string | null; error: string | null }>(
      'webhooks.sendTestEvent', 'POST', { id: endpoint.id });
    const outcome = sent.statusCode === null ? 'no answer: ' + (sent.error ?? 'unknown') : 'HTTP ' + sent.statusCode;
    return (sent.succeeded ? 'Test event delivered: ' : 'Test event failed: ') + outcome + ' in ' + sent.durationMs + ' ms'
      + (sent.responseExcerpt ? ' · ' + sent.responseExcerpt.slice(0, 200) : '');
  }));
  tools.append(since, redeliver, test, answer);
  tr.append(tools);
  return tr;
}

export async function load(): Promise<void> {
  $('webhooks-error').textContent = '';
  const page = await rpc<{ data: Endpoint[] }>('webhooks.getAll', 'GET');
  const tbody = $('webhooks-table', HTMLTableElement).tBodies[0]!;
  tbody.replaceChildren(...page.data.map(row));
  show('webhooks-empty', page.data.length === 0);
  show('webhooks-table', page.data.length > 0);
}

/** With each new test token: lists the endpoints (a token without Read on webhooks shows why not). */
export function start(next: PlaygroundToken): void {
  token = next;
  $('webhooks-status').textContent = 'Listed with the test token: Redeliver and Send test event need Write on webhooks.';
  load().catch((e: unknown) => { $('webhooks-error').textContent = messageOf(e); });
}

export function stop(): void {
  token = null;
}

export function init(): void {
  $('webhooks-refresh').addEventListener('click', () => { load().catch((e: unknown) => { $('webhooks-error').textContent = messageOf(e); }); });
}
