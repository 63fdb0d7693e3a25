import type { Db } from '../knex';
import { TABLES } from '../tables';

/** A webhook endpoint as the API returns it: never its signing secret (shown once, by create and rotateSecret). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  /** Event types, or `["*"]` for every type the endpoint's creator may read. */
  events: string[];
  enabled: boolean;
  /** Why the service disabled it (failing for days), or null. */
  disabledReason: string | null;
  /** Since when every attempt to it has failed, or null while it answers. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const ENDPOINT_COLUMNS = ['id', 'url', 'description', 'events', 'enabled', 'disabled_reason', 'failing_since', 'created_at', 'updated_at'];

export interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function getById(db: Db, orgId: string, id: string): Promise<WebhookEndpoint | undefined> {
  const row = await db(TABLES.webhookEndpoints).where({ org_id: orgId, id }).first(ENDPOINT_COLUMNS);
  return row ? toEndpoint(row as EndpointRow) : undefined;
}
