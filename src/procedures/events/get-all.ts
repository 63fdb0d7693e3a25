import { defineProcedure } from '../../rpc/define-procedure';
import * as eventsQueries from '../../db/events';
import { toPage } from '../../db/pagination';
import { AppError } from '../../errors/app-error';
import { EVENT_TYPES, eventDataReadableWith, eventTypesReadableWith, firstUnreadableType, type EventType } from '../../events/event-types';
import { enumOf, idOf, listOf, objectOf } from '../shared/fields';
import { dateTimeField } from '../shared/format-fields';
import { DEFAULT_PAGE_SIZE, pageNumber, pageSizeNumber } from '../shared/pagination.schema';
import { eventsPageOutput, type EventOutput } from './event.schema';

const eventType = enumOf(EVENT_TYPES as [EventType, ...EventType[]], 'an event type');

export const eventsGetAllInput = objectOf({
  /** One type, or several with `types`; without either, every type the key may read. */
  type: eventType.optional(),
  types: listOf(eventType, { of: 'event types', min: 1, max: EVENT_TYPES.length }).optional(),
  /** Half-open range on the event's time: createdAfter <= createdAt < createdBefore. */
  createdAfter: dateTimeField.optional(),
  createdBefore: dateTimeField.optional(),
  /**
   * Catch-up mode: the events after this one (null: from the oldest kept), oldest first. Give the
   * last id answered to go on; no event committed later is ever skipped.
   */
  after: idOf('evt').nullable().optional(),
  /** Page mode (the default): newest first, with the exact total. */
  page: pageNumber.optional(),
  pageSize: pageSizeNumber.default(DEFAULT_PAGE_SIZE),
})
  .superRefine((input, ctx) => {
    if (input.after !== undefined && input.page !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['after'], message: 'give either after or page, not both' });
    }
  })
  // What JSON Schema can say of the refinement above, for the OpenAPI document.
  .meta({ not: { properties: { after: {}, page: {} }, required: ['after', 'page'] }, description: 'Filters, and either `page` (page mode) or `after` (catch-up mode), not both.' })
  .prefault({});

export const eventsGetAll = defineProcedure({
  name: 'events.getAll',
  method: 'GET',
  scope: 'events.read',
  exposed: true,
  description: "The workspace's events: a page newest first, or with `after` every event after a given one, oldest first.",
  input: eventsGetAllInput,
  output: eventsPageOutput,
  async handler({ ctx, input }) {
    const filters = { types: visibleTypes(ctx.scopes, input), createdAfter: input.createdAfter, createdBefore: input.createdBefore };
    if (input.after === undefined) {
      const page = { page: input.page ?? 1, pageSize: input.pageSize };
      const { events, total } = await eventsQueries.list(ctx.db, ctx.orgId, filters, page);
      return toPage(events.map((event) => readableBy(ctx.scopes, event)), total, page);
    }
    const position = input.after === null ? eventsQueries.BEFORE_ALL_EVENTS : await eventsQueries.positionOf(ctx.db, ctx.orgId, input.after);
    if (!position) {
      throw new AppError('NOT_FOUND', `No event ${JSON.stringify(input.after)} in this workspace (events are kept for a limited time): start again with after: null`);
    }
    const { events, more } = await eventsQueries.listAfter(ctx.db, ctx.orgId, position, filters, input.pageSize);
    return {
      data: events.map((event) => readableBy(ctx.scopes, event)),
      pagination: { page: null, pageSize: input.pageSize, hasNextPage: more, nextAfter: events.at(-1)?.id ?? input.after },
    };
  },
});

/** An event as these scopes may see it (embedded resources they cannot read become references); the event itself when nothing is narrowed. */
export function readableBy(scopes: ReadonlySet<string>, event: eventsQueries.WorkspaceEvent): EventOutput {
  const data = eventDataReadableWith(event.type, event.data, scopes);
  // `data` is stored JSON, typed loosely by the data module; its shape is the output schema's (checked in tests).
  // The same object when unchanged: a stream's readers of one event then share its encoding (src/http/event-stream.ts).
  return (data === event.data ? event : { ...event, data }) as EventOutput;
}

/** The types asked for, all of which the key must be able to read; or every type it can read. */
export function visibleTypes(scopes: ReadonlySet<string>, input: { type?: EventType; types?: EventType[] }): EventType[] {
  const asked = [...(input.type ? [input.type] : []), ...(input.types ?? [])];
  if (asked.length === 0) return eventTypesReadableWith(scopes);
  const hidden = firstUnreadableType(scopes, asked);
  if (hidden) throw new AppError('FORBIDDEN', `missing scope: ${hidden.scope} (to see ${hidden.type} events)`);
  return [...new Set(asked)];
}
