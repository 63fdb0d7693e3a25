/**
 * The scopes an API key, playground token or stream token can hold: `<resource>.<action>` of the
 * procedures exposed to the API (an app-only procedure's scope would open nothing through a key).
 * Written out, so what a key can be given is read in one place; tests/unit/scopes.test.ts holds
 * it to the exposed procedures' scopes, so a new procedure with a new scope fails there until it
 * is added here.
 */
export const KNOWN_SCOPES: ReadonlySet<string> = new Set([
  ...crud('leads'),
  ...crud('contacts'),
  'contacts.erase',
  ...crud('clients'),
  ...crud('tasks'),
  ...crud('invoices'),
  'orgMembers.read',
  'events.read',
  ...crud('webhooks'),
  // An import's upload needs imports.create and the resource's own write scopes (src/http/imports-rest).
  'imports.read',
  'imports.create',
]);

function crud(resource: string): string[] {
  return ['read', 'create', 'update', 'delete'].map((action) => `${resource}.${action}`);
}

/**
 * Scopes no preset grants: the developer page's Write level for their resource leaves them out,
 * and they are given one by one. contacts.erase forgets a person for good (no undo), so a key
 * made for an integration's ordinary writes never holds it by accident.
 */
export const OPT_IN_SCOPES: ReadonlySet<string> = new Set(['contacts.erase']);
