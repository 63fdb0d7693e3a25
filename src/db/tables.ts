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
