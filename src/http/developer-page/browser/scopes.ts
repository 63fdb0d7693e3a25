/**
 * The scope pickers of the key form and the test-token form. One row per resource with None /
 * Read / Write (as Stripe's restricted keys): Read is `<resource>.read`, Write adds every write
 * scope of the resource. Each row lists the scopes its choice grants, so every scope stays
 * visible. Also the hint for a 403 naming a missing scope, in the pickers' words.
 */
import type { ScopeResource } from './api-types';
import { el } from './dom';

export type Level = 'none' | 'read' | 'write';

const LEVELS: [Level, string][] = [['none', 'None'], ['read', 'Read'], ['write', 'Write']];

function grantedBy(resource: ScopeResource, level: Level): string[] {
  if (level === 'read') return resource.read ? [resource.read] : [];
  if (level === 'write') return (resource.read ? [resource.read] : []).concat(resource.write);
  return [];
}

function isAvailable(resource: ScopeResource, level: Level): boolean {
  return level === 'none' || (level === 'read' ? !!resource.read : resource.write.length > 0);
}

// Fills the container with a table: resource, three radios, the scopes granted. name prefixes the radio groups.
export function render(container: HTMLElement, resources: ScopeResource[], name: string, initialLevel: Level): void {
  const table = el('table', 'scope-picker');
  const head = el('tr');
  ['Resource', 'Access', 'Grants'].forEach((t) => { head.appendChild(el('th', null, t)); });
  table.appendChild(el('thead')).appendChild(head);
  const tbody = table.appendChild(el('tbody'));
  resources.forEach((resource) => {
    const tr = el('tr');
    tr.dataset.resource = resource.resource;
    tr.appendChild(el('td', 'resource', resource.resource));
    const grants = el('td', 'grants');
    const showGrants = (level: Level) => {
      const scopes = grantedBy(resource, level);
      grants.replaceChildren();
      if (scopes.length === 0) grants.appendChild(el('span', 'muted', 'nothing'));
      scopes.forEach((s) => { grants.appendChild(el('span', 'chip', s)); });
    };
    const start = isAvailable(resource, initialLevel) ? initialLevel : 'none';
    const levels = el('td', 'levels');
    LEVELS.forEach(([level, label]) => {
      const available = isAvailable(resource, level);
      const box = el('label', 'check');
      const input = el('input');
      input.type = 'radio';
      input.name = name + '-' + resource.resource;
      input.value = level;
      input.disabled = !available;
      input.checked = input.defaultChecked = level === start;
      input.setAttribute('aria-label', label + ' for ' + resource.resource);
      input.addEventListener('change', () => { if (input.checked) showGrants(level); });
      box.appendChild(input);
      box.appendChild(document.createTextNode(' ' + label));
      if (!available) box.title = 'No ' + level + ' procedures for ' + resource.resource;
      levels.appendChild(box);
    });
    // Scopes no level grants (contacts.erase): a box of their own, never checked by default.
    (resource.optIn || []).forEach((scope) => {
      const box = el('label', 'check');
      const input = el('input');
      input.type = 'checkbox';
      input.name = name + '-opt-in';
      input.value = scope;
      input.setAttribute('aria-label', scope);
      box.appendChild(input);
      box.appendChild(document.createTextNode(' ' + scope));
      levels.appendChild(box);
    });
    tr.appendChild(levels);
    tr.appendChild(grants);
    tbody.appendChild(tr);
    showGrants(chosenLevel(tr));
  });
  container.replaceChildren(table);
}

function chosenLevel(row: HTMLElement): Level {
  const checked = row.querySelector<HTMLInputElement>('input[type=radio]:checked');
  return checked ? (checked.value as Level) : 'none';
}

// The scopes the picker's choices grant, in the resources' order.
export function chosen(container: HTMLElement, resources: ScopeResource[]): string[] {
  let out: string[] = [];
  resources.forEach((resource) => {
    const row = container.querySelector<HTMLElement>('tr[data-resource="' + resource.resource + '"]');
    if (!row) return;
    out = out.concat(grantedBy(resource, chosenLevel(row)));
    row.querySelectorAll<HTMLInputElement>('input[type=checkbox]:checked').forEach((box) => { out.push(box.value); });
  });
  return out;
}

// "missing scope: leads.create" in a 403 -> which box gives it, in the pickers' words.
export function missingScopeHint(message: string | null, holder: string, where: string): string | null {
  const match = /missing scope: ([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)/.exec(message || '');
  if (!match) return null;
  const scope = match[1] + '.' + match[2];
  // A scope no level grants (contacts.erase) has a box of its own.
  if (['read', 'create', 'update', 'delete'].indexOf(match[2]!) === -1) return 'This ' + holder + ' lacks ' + scope + ': tick ' + scope + ' for ' + match[1] + ' ' + where;
  const level = match[2] === 'read' ? 'Read' : 'Write';
  return 'This ' + holder + ' lacks ' + scope + ': choose ' + level + ' for ' + match[1] + ' ' + where;
}
