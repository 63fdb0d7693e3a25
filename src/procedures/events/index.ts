import { eventsGetAll } from './get-all';

export const eventsProcedures = [eventsGetAll] as const;
