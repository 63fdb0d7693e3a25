/**
 * Rolling a key from the keys table (POST /developer/api/keys/:id/roll): a Roll button per usable
 * key that, on a first click, offers how long the previous secret keeps working and, on a second,
 * rolls; the new secret is shown once, in the box a new key's secret uses. The table shows a
 * pending previous secret and its end under the key's status.
 */
import type { KeyView, RolledKeyAnswer } from './api-types';
import { $, el, messageOf, show } from './dom';

export interface RollDeps {
  post: (path: string, body: unknown) => Promise<RolledKeyAnswer>;
  formatDate: (iso: string | null | undefined) => string;
  /** Reloads the keys table (after a roll, or to show a failure next to it). */
  reload: () => Promise<void>;
  alert: (message: string) => void;
}

// The choices of overlap, in seconds (apiKeys.roll takes 0 to 7 days; default a day).
const OVERLAPS: [seconds: number, label: string][] = [
  [0, 'stop the old secret now'],
  [3600, 'keep the old secret 1 hour'],
  [86_400, 'keep the old secret 24 hours'],
  [604_800, 'keep the old secret 7 days'],
];
const DEFAULT_OVERLAP = 86_400;

/** "previous wsk_… until …" under the status of a key whose replaced secret still works; null otherwise. */
export function previousSecretNote(key: KeyView, formatDate: RollDeps['formatDate']): HTMLElement | null {
  if (!key.previousSecret) return null;
  const note = el('div', 'previous-secret');
  note.appendChild(document.createTextNode('previous '));
  note.appendChild(el('code', null, key.previousSecret.prefix + '…'));
  note.appendChild(document.createTextNode(' works until ' + formatDate(key.previousSecret.expiresAt)));
  return note;
}

/** The Roll control of one key: two clicks (choose the overlap, then confirm), like Revoke. */
export function rollControl(key: KeyView, deps: RollDeps): HTMLElement {
  const wrap = el('span', 'roll');
  const button = el('button', 'small roll-button', 'Roll');
  button.type = 'button';
  const overlap = el('select', 'roll-overlap');
  overlap.setAttribute('aria-label', 'How long the previous secret keeps working');
  OVERLAPS.forEach(([seconds, label]) => {
    const option = el('option', null, label);
    option.value = String(seconds);
    option.selected = seconds === DEFAULT_OVERLAP;
    overlap.appendChild(option);
  });
  overlap.hidden = true;
  button.addEventListener('click', async () => {
    if (button.dataset.armed !== 'yes') {
      button.dataset.armed = 'yes';
      button.textContent = 'Confirm roll';
      overlap.hidden = false;
      return;
    }
    button.disabled = true;
    try {
      const seconds = Number(overlap.value);
      const rolled = await deps.post('/keys/' + encodeURIComponent(key.id) + '/roll', { expirePreviousInSeconds: seconds });
      showRolledSecret(rolled, deps.formatDate);
      await deps.reload();
    } catch (e) {
      button.disabled = false;
      deps.alert(messageOf(e));
    }
  });
  wrap.appendChild(overlap);
  wrap.appendChild(button);
  return wrap;
}

function showRolledSecret(rolled: RolledKeyAnswer, formatDate: RollDeps['formatDate']): void {
  $('new-secret-value').textContent = rolled.key.secret;
  $('copy-secret').textContent = 'Copy';
  const end = rolled.key.previousSecretExpiresAt;
  $('new-secret-note').textContent = 'New secret of "' + rolled.key.name + '". ' +
    (end ? 'The previous secret keeps working until ' + formatDate(end) + '.' : 'The previous secret no longer works.');
  show('new-secret-note', true);
  show('new-secret', true);
}
