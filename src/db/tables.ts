/** Table names, in one place so queries and migrations agree. */
export const TABLES = {
  organisations: 'organisations',
  orgMembers: 'org_members',
  contacts: 'contacts',
  clients: 'clients',
  leads: 'leads',
  tasks: 'tasks',
  invoices: 'invoices',
  invoiceLineItems: 'invoice_line_items',
  apiKeys: 'api_keys',
  leadCalls: 'lead_calls',
  /** Counters of leads kept by triggers on leads (migration 20261123150000_create_lead_counts); assignee_key '' is "unassigned". */
  leadCounts: 'lead_counts',
  /** Each lead's JSON as the REST list sends it, kept by triggers (migration 20261205120000_store_lead_json). */
  leadJson: 'lead_json',
  /** Secondary indexes a bulk load dropped and has yet to build again (migration 20261208120000_create_deferred_indexes). */
  deferredIndexes: 'deferred_indexes',
  idempotencyKeys: 'idempotency_keys',
  events: 'events',
  webhookEndpoints: 'webhook_endpoints',
  webhookDeliveries: 'webhook_deliveries',
  webhookDeliveryAttempts: 'webhook_delivery_attempts',
} as const;

/**
 * The `updated_at` of a row being changed: the time of the write (not of the transaction's start,
 * which may precede waiting for the row lock), and always later than the previous value, so
 * `updatedAt` only moves forward and optimistic-concurrency checks can trust it.
 */
export const NEXT_UPDATED_AT = "greatest(clock_timestamp(), updated_at + interval '1 millisecond')";
