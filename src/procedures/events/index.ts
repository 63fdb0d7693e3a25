import { eventsGetAll } from './get-all';
import { eventsOnEvent } from './on-event';

export const eventsProcedures = [eventsGetAll] as const;
export const eventsSubscriptions = [eventsOnEvent] as const;
