/**
 * The rule for one resource inside another's answer or event (a lead's new client, say): it is
 * embedded whole only for a reader holding that resource's read scope; anyone else gets a
 * reference by id, so a key without `clients.read` never sees a client's email or notes by way
 * of a lead. Answers apply it in the procedure that embeds; events and webhook payloads by the
 * fields each event type declares (EMBEDDED_IN_EVENTS).
 */
export function embedIfReadable<T extends { id: string }>(scopes: ReadonlySet<string>, readScope: string, object: T): T | { id: string } {
  return scopes.has(readScope) ? object : { id: object.id };
}
