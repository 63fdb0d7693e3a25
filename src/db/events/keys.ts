// How statements find events by key: a person's (the person index's expression) and a batch's
// (its rows' workspace and id). A module of its own, importing nothing, so src/db/history can use
// it while src/db/events uses src/db/history.

// The person an event is about, as events_org_person_idx (migration 20261214120100) indexes it,
// word for word: the planner uses the index only for the same text. A lead.* event belongs to the
// contact its lead object embeds (which also finds the events of the person's leads deleted
// before); any other event to its object (contact.*: the contact). Unqualified: the statement's
// FROM names the events alone (or first).
export const PERSON_KEY = `(case when type like 'lead.%' then data #>> '{object,contactId}' else object_id end)`;

/**
 * The events of a batch, by their keys (org_id, id), as a condition on `alias` with three
 * bindings (eventsNamedBindings): the workspaces and ids as lists, which Citus prunes its shards
 * by, and the exact pairs. A row-valued `(org_id, id) in (select ... unnest ...)` is planned wrong
 * on Citus.
 */
export const EVENTS_NAMED = (alias: string) =>
  `${alias}.org_id = any(?::text[]) and ${alias}.id = any(?::text[]) and ${alias}.org_id || ' ' || ${alias}.id = any(?::text[])`;

export function eventsNamedBindings(orgIds: readonly string[], ids: readonly string[]): string[][] {
  return [[...new Set(orgIds)], [...ids], ids.map((id, i) => `${orgIds[i]} ${id}`)];
}
