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
  /** Each key's secret hash, unique across workspaces, and whose key it is (a reference table on Citus). */
  apiKeySecrets: 'api_key_secrets',
  leadCalls: 'lead_calls',
  /** Counters of leads, kept by every lead write (src/db/leads/counters.ts); assignee_key '' is "unassigned". */
  leadCounts: 'lead_counts',
  /** Each lead's JSON as the REST list sends it, kept by every lead and contact write (storeLeadJson, src/db/leads/lead-json.ts). */
  leadJson: 'lead_json',
  /** Secondary indexes a bulk load dropped and has yet to build again (migration 20261208120000_create_deferred_indexes). */
  deferredIndexes: 'deferred_indexes',
  idempotencyKeys: 'idempotency_keys',
  events: 'events',
  webhookEndpoints: 'webhook_endpoints',
  webhookDeliveries: 'webhook_deliveries',
  webhookDeliveryAttempts: 'webhook_delivery_attempts',
  /** Each endpoint's attempts and successes by the hour, and its latest answer (migration 20261216120200). */
  webhookEndpointHours: 'webhook_endpoint_hours',
  /** Import jobs, their uploaded rows and their failed rows (src/db/imports, migration 20261213120000). */
  imports: 'imports',
  importChunks: 'import_chunks',
  importErrors: 'import_errors',
  /** The change history of leads, contacts and clients (src/db/history, migration 20261214120200). */
  recordHistory: 'record_history',
  /** Deleted records until restored or purged (src/db/trash, migration 20261214120000). */
  trash: 'trash',
  /** The audit rows of contacts.erase: who, when, which ids; no personal data (src/db/erasure). */
  erasures: 'erasures',
  /** Each API key's request log (src/db/api-key-requests, migration 20261216120100). */
  apiKeyRequestBatches: 'api_key_request_batches',
} as const;

/**
 * The `updated_at` of a row being changed: the time of the writing statement (not of the
 * transaction's start), and always later than the previous value, so `updatedAt` only moves
 * forward and optimistic-concurrency checks can trust it. An immutable function of the old value
 * and statement_timestamp(), not clock_timestamp(): Citus evaluates a write's functions on the
 * coordinator and refuses volatile ones, and stable ones that take a column
 * (migration 20261209120000_distribute_by_workspace).
 */
export const nextUpdatedAtOf = (column: string) => `next_updated_at(${column}, statement_timestamp())`;
export const NEXT_UPDATED_AT = nextUpdatedAtOf('updated_at');
/** "Now" in a write: the writing statement's time (see NEXT_UPDATED_AT). */
export const WRITE_TIME = 'statement_timestamp()';
