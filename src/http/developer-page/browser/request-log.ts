/**
 * A key's request log on the developer page (GET /developer/api/keys/:id/requests, which answers
 * as apiKeys.getRequests does): newest first, with a failures-only filter and a procedure filter,
 * and "Older" to walk on with the page's cursor. Built with textContent only, like the rest.
 */
import type { KeyRequestsAnswer, KeyView } from './api-types';
import { $, el, messageOf, show } from './dom';

/** The page's fetch of /developer/api (main.ts), with the member session. */
export type ReadApi = <T>(path: string) => Promise<T>;

interface Shown {
  key: KeyView;
  read: ReadApi;
  /** Counts openings and filter changes: a page that arrives after one belongs to the previous view. */
  generation: number;
  cursor: string | null;
}

let shown: Shown | null = null;

/** The Requests button of a key's row. */
export function requestsButton(key: KeyView, read: ReadApi): HTMLButtonElement {
  const button = el('button', 'small', 'Requests');
  button.type = 'button';
  button.dataset.action = 'requests';
  button.addEventListener('click', () => { open(key, read); });
  return button;
}

function open(key: KeyView, read: ReadApi): void {
  shown = { key, read, generation: (shown?.generation ?? 0) + 1, cursor: null };
  $('request-log-title').textContent = 'Requests of ' + key.name + ' (' + key.prefix + '…)';
  $('request-log-failed', HTMLInputElement).checked = false;
  $('request-log-procedure', HTMLInputElement).value = '';
  show('request-log', true);
  void load(false);
}

function queryOf(cursor: string | null): string {
  const params = new URLSearchParams();
  if ($('request-log-failed', HTMLInputElement).checked) params.set('status', 'failed');
  const procedure = $('request-log-procedure', HTMLInputElement).value.trim();
  if (procedure) params.set('procedure', procedure);
  if (cursor) params.set('after', cursor);
  const text = params.toString();
  return text ? '?' + text : '';
}

/** The first page (a fresh view), or the next older one (`more`). */
async function load(more: boolean): Promise<void> {
  if (!shown) return;
  const view = shown;
  if (!more) view.generation += 1;
  const generation = view.generation;
  $('request-log-error').textContent = '';
  try {
    const page = await view.read<KeyRequestsAnswer>('/keys/' + encodeURIComponent(view.key.id) + '/requests' + queryOf(more ? view.cursor : null));
    if (shown !== view || view.generation !== generation) return;
    const tbody = $('request-log-table', HTMLTableElement).tBodies[0]!;
    if (!more) tbody.replaceChildren();
    page.requests.forEach((r) => {
      const tr = el('tr', r.status >= 400 ? 'failed' : null);
      tr.appendChild(el('td', null, r.at.slice(0, 23).replace('T', ' ')));
      tr.appendChild(el('td', null, r.method));
      tr.appendChild(el('td', 'request-procedure')).appendChild(el('code', null, r.procedure));
      tr.appendChild(el('td', 'request-status ' + (r.status >= 400 ? 'off' : 'on'), String(r.status)));
      tr.appendChild(el('td', null, r.errorCode ?? ''));
      tr.appendChild(el('td', null, r.durationMs.toFixed(1) + ' ms'));
      tr.appendChild(el('td')).appendChild(el('code', null, r.requestId));
      tr.appendChild(el('td', null, r.clientAddress ?? ''));
      tbody.appendChild(tr);
    });
    view.cursor = page.nextCursor;
    show('request-log-more', page.nextCursor !== null);
    show('request-log-empty', tbody.rows.length === 0);
  } catch (e) {
    $('request-log-error').textContent = messageOf(e);
  }
}

/** Wires the section's controls once the page has loaded. */
export function wireRequestLog(): void {
  $('request-log-failed').addEventListener('change', () => { void load(false); });
  $('request-log-filter').addEventListener('submit', (event) => { event.preventDefault(); void load(false); });
  $('request-log-more').addEventListener('click', () => { void load(true); });
  $('request-log-refresh').addEventListener('click', () => { void load(false); });
  $('request-log-close').addEventListener('click', () => { shown = null; show('request-log', false); });
}
