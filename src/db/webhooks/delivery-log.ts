import type { EventType } from '../../domain/event-types';
import type { Db } from '../knex';
import { TABLES } from '../tables';
import { paginate } from '../paginate';
import type { PageRequest } from '../pagination';

// What webhooks.getDeliveries shows: an endpoint's deliveries and their attempts. The worker's
// own SQL (claiming, settling) is in deliveries.ts.

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryAttempt {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/** One event's delivery to one endpoint, with every attempt made so far (oldest first). */
export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: EventType;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** When the next attempt is due; null once the delivery succeeded or gave up. */
  nextAttemptAt: Date | null;
  createdAt: Date;
  completedAt: Date | null;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  next_attempt_at: Date;
  created_at: Date;
  completed_at: Date | null;
}

const DELIVERY_COLUMNS = ['d.id', 'd.event_id', 'e.type as event_type', 'd.status', 'd.next_attempt_at', 'd.created_at', 'd.completed_at'];

/** A page of an endpoint's deliveries, newest first, with their attempts, and the exact total. */
export async function listDeliveries(
  db: Db,
  orgId: string,
  endpointId: string,
  filters: { status?: DeliveryStatus },
  page: PageRequest,
): Promise<{ deliveries: WebhookDelivery[]; total: number }> {
  const { items, total } = await paginate<DeliveryRow, DeliveryRow>({
    filtered: () => {
      const query = db(`${TABLES.webhookDeliveries} as d`)
        .join(`${TABLES.events} as e`, (on) => on.on('e.org_id', 'd.org_id').andOn('e.id', 'd.event_id'))
        .where({ 'd.org_id': orgId, 'd.endpoint_id': endpointId });
      if (filters.status) query.where('d.status', filters.status);
      return query;
    },
    select: DELIVERY_COLUMNS,
    orderBy: 'd.created_at desc, d.id desc',
    page,
    toItem: (row) => row,
  });
  const attempts = await attemptsOf(db, orgId, items.map((row) => row.id));
  const deliveries = items.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type as EventType, // written only from recorded events' types
    status: row.status,
    attempts: attempts.get(row.id) ?? [],
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  }));
  return { deliveries, total };
}

async function attemptsOf(db: Db, orgId: string, deliveryIds: string[]): Promise<Map<string, DeliveryAttempt[]>> {
  const byDelivery = new Map<string, DeliveryAttempt[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows: (DeliveryAttempt & { deliveryId: string })[] = await db(TABLES.webhookDeliveryAttempts)
    .select(
      'delivery_id as deliveryId', 'attempt', 'started_at as startedAt', 'duration_ms as durationMs', 'status_code as statusCode', 'error',
      'response_excerpt as responseExcerpt',
    )
    .where({ org_id: orgId })
    .whereIn('delivery_id', deliveryIds)
    .orderBy([{ column: 'delivery_id' }, { column: 'attempt' }]);
  for (const { deliveryId, ...attempt } of rows) byDelivery.set(deliveryId, [...(byDelivery.get(deliveryId) ?? []), attempt]);
  return byDelivery;
}
