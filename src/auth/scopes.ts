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
