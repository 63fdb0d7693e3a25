import { z } from 'zod';
import type { DeliveryStatus } from '../../db/webhooks/delivery-log';
import { EVENT_TYPES, type EventType } from '../../events/event-types';
import { idOutput, integerOutput, timestampOutput } from '../shared/output-fields';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const satisfies readonly DeliveryStatus[];

/** One attempt to deliver an event (src/db/webhooks/delivery-log.ts). */
export const deliveryAttemptOutput = z
  .strictObject({
    attempt: z.number().int().min(1).meta({ description: '1 for the first attempt.', examples: [1] }),
    startedAt: timestampOutput('2026-12-10T15:00:01.000Z'),
    durationMs: integerOutput(184).min(0),
    statusCode: integerOutput(500).nullable().meta({ description: "The receiver's HTTP status; null when no answer came (timeout, refused connection)." }),
    error: z
      .string()
      .meta({ examples: ['timed out after 10000 ms'] })
      .nullable()
      .meta({ description: 'What broke the exchange (a timeout, a refused connection); null when the receiver answered, whatever its status.', examples: [null] }),
    responseExcerpt: z.string().nullable().meta({ description: "The start of the receiver's answer, if any.", examples: ['{"error":"database unavailable"}'] }),
  })
  .meta({ description: 'One attempt to deliver an event to a webhook endpoint.' });

/** One event's delivery to one endpoint, with its attempts, oldest first. */
export const deliveryOutput = z
  .strictObject({
    id: idOutput('dlv'),
    eventId: idOutput('evt'),
    eventType: z.enum(EVENT_TYPES as [EventType, ...EventType[]]).meta({ examples: ['invoice.paid'] }),
    status: z.enum(DELIVERY_STATUSES).meta({ examples: ['pending'] }),
    attempts: z.array(deliveryAttemptOutput),
    nextAttemptAt: timestampOutput('2026-12-10T15:01:01.000Z').nullable().meta({ description: 'When the next attempt is due; null once the delivery succeeded or gave up.' }),
    createdAt: timestampOutput('2026-12-10T15:00:00.000Z'),
    completedAt: timestampOutput('2026-12-10T15:05:00.000Z').nullable().meta({ description: 'When it succeeded or gave up; null while pending.', examples: [null] }),
  })
  .meta({ description: "An event's delivery to a webhook endpoint, with every attempt so far." });
