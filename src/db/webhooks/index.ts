import type { Db } from '../knex';
import { TABLES, NEXT_UPDATED_AT, WRITE_TIME } from '../tables';
import { paginate } from '../paginate';
import type { PageRequest } from '../pagination';
import { newId } from '../../domain/ids';
import type { ALL_EVENTS, EventType } from '../../domain/event-types';

export type SubscribedEvent = EventType | typeof ALL_EVENTS;

/** A webhook endpoint as the API returns it: never its signing secret (shown once, by create and rotateSecret). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  /** Event types, or `["*"]` for every type the endpoint's creator may read. */
  events: SubscribedEvent[];
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
    events: row.events as SubscribedEvent[], // written only from the input's checked list
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

/** Whose authority an endpoint's deliveries carry: the key (or token) that set its subscriptions, and its event read scopes. */
export interface EndpointOwner {
  ownerKind: string;
  ownerId: string;
  readScopes: string[];
}

export interface NewEndpoint extends EndpointOwner {
  url: string;
  description: string | null;
  events: string[];
  secret: string;
}

/** Absent means unchanged. */
export interface EndpointPatch extends Partial<EndpointOwner> {
  url?: string;
  description?: string | null;
  events?: string[];
  enabled?: boolean;
}

const ENDPOINTS_LOCK_CLASS = 8_001;

/**
 * Serialises endpoint creation within one workspace until the transaction ends, so two concurrent
 * creates cannot both pass the per-workspace limit. Two-key form: its key space never meets the
 * single-bigint locks of idempotency keys.
 */
export async function lockWorkspaceEndpoints(trx: Db, orgId: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(?::int, hashtext(?))', [ENDPOINTS_LOCK_CLASS, orgId]);
}

export async function countInWorkspace(db: Db, orgId: string): Promise<number> {
  const [row] = await db(TABLES.webhookEndpoints).where({ org_id: orgId }).count({ n: '*' });
  return Number(row?.n ?? 0);
}

export async function insert(db: Db, orgId: string, fields: NewEndpoint): Promise<WebhookEndpoint> {
  const [row] = await db(TABLES.webhookEndpoints)
    .insert({
      org_id: orgId,
      id: newId('wh'),
      url: fields.url,
      description: fields.description,
      events: fields.events,
      secret: fields.secret,
      owner_kind: fields.ownerKind,
      owner_id: fields.ownerId,
      read_scopes: fields.readScopes,
    })
    .returning(ENDPOINT_COLUMNS);
  return toEndpoint(row as EndpointRow);
}

/** A page of the workspace's endpoints, newest first, and the exact total. */
export async function list(db: Db, orgId: string, page: PageRequest): Promise<{ endpoints: WebhookEndpoint[]; total: number }> {
  const { items, total } = await paginate<EndpointRow, WebhookEndpoint>({
    filtered: () => db(TABLES.webhookEndpoints).where({ org_id: orgId }),
    select: ENDPOINT_COLUMNS,
    orderBy: 'created_at desc, id desc',
    page,
    toItem: toEndpoint,
  });
  return { endpoints: items, total };
}

/** Locks the endpoint for the rest of the transaction; answers what an update must check. */
export async function lockForUpdate(db: Db, orgId: string, id: string): Promise<{ events: string[]; updatedAt: Date } | undefined> {
  const row = await db(TABLES.webhookEndpoints).select('events', 'updated_at').where({ org_id: orgId, id }).forUpdate().first();
  return row ? { events: row.events, updatedAt: row.updated_at } : undefined;
}

export async function update(db: Db, orgId: string, id: string, patch: EndpointPatch): Promise<WebhookEndpoint | undefined> {
  const columns: Record<string, unknown> = {};
  if (patch.url !== undefined) columns.url = patch.url;
  if (patch.description !== undefined) columns.description = patch.description;
  if (patch.events !== undefined) columns.events = patch.events;
  if (patch.ownerKind !== undefined) columns.owner_kind = patch.ownerKind;
  if (patch.ownerId !== undefined) columns.owner_id = patch.ownerId;
  if (patch.readScopes !== undefined) columns.read_scopes = patch.readScopes;
  if (patch.enabled !== undefined) columns.enabled = patch.enabled;
  // Enabling (again) starts afresh: the failure streak that disabled it no longer counts.
  if (patch.enabled === true) Object.assign(columns, { failing_since: null, disabled_reason: null });
  const [row] = await db(TABLES.webhookEndpoints)
    .where({ org_id: orgId, id })
    .update({ ...columns, updated_at: db.raw(NEXT_UPDATED_AT) })
    .returning(ENDPOINT_COLUMNS);
  return row ? toEndpoint(row as EndpointRow) : undefined;
}

/**
 * Replaces the signing secret. The one replaced stays valid for `previousValidSeconds` (deliveries
 * are signed with both meanwhile), so receivers can roll over; 0 drops it at once. A secret kept
 * from an earlier rotation is dropped either way: at most two are ever valid.
 */
export async function rotateSecret(
  db: Db,
  orgId: string,
  id: string,
  secret: string,
  previousValidSeconds: number,
): Promise<{ endpoint: WebhookEndpoint; previousSecretExpiresAt: Date | null } | undefined> {
  const keepPrevious = previousValidSeconds > 0;
  const [row] = await db(TABLES.webhookEndpoints)
    .where({ org_id: orgId, id })
    .update({
      secret,
      previous_secret: keepPrevious ? db.ref('secret') : null,
      previous_secret_expires_at: keepPrevious ? db.raw(`${WRITE_TIME} + make_interval(secs => ?)`, [previousValidSeconds]) : null,
      updated_at: db.raw(NEXT_UPDATED_AT),
    })
    .returning([...ENDPOINT_COLUMNS, 'previous_secret_expires_at']);
  if (!row) return undefined;
  return { endpoint: toEndpoint(row as EndpointRow), previousSecretExpiresAt: row.previous_secret_expires_at };
}

/** Answers false when there was no such endpoint in the workspace; its deliveries go with it. */
export async function remove(db: Db, orgId: string, id: string): Promise<boolean> {
  return (await db(TABLES.webhookEndpoints).where({ org_id: orgId, id }).delete()) > 0;
}

/** Where and how a test event is sent (webhooks.sendTestEvent): the URL and the valid secrets, the current one first. */
export async function signingTargetOf(db: Db, orgId: string, id: string): Promise<{ url: string; secrets: string[] } | undefined> {
  const row = await db(TABLES.webhookEndpoints)
    .where({ org_id: orgId, id })
    .first('url', 'secret', db.raw('case when previous_secret_expires_at > now() then previous_secret end as previous_secret'));
  return row ? { url: row.url, secrets: row.previous_secret ? [row.secret, row.previous_secret] : [row.secret] } : undefined;
}
