import { z } from 'zod';
import { dateTimeField } from '../shared/fields';
import { isTimeZone } from './calendar';

const DAY_MS = 86_400_000;
export const DEFAULT_RANGE_DAYS = 30;
export const MAX_RANGE_DAYS = 366;
// Four-digit years keep the days' `YYYY-MM-DD` labels the same in JavaScript and PostgreSQL.
const EARLIEST = new Date('1970-01-01T00:00:00Z');
const LATEST = new Date('9999-01-01T00:00:00Z');

const instant = dateTimeField.refine((d) => d >= EARLIEST && d < LATEST, 'must be between 1970-01-01 and 9999-01-01');

const timeZoneField = z
  .string()
  .max(64)
  .refine(isTimeZone, 'must be an IANA time zone name, such as UTC or Europe/London');

/**
 * The range is half-open, [from, to): `to` defaults to now and `from` to 30 days before `to`.
 * Resolved here, so the handler always gets a checked range and a zone.
 */
export const leadStatsInput = z
  .strictObject({ from: instant.optional(), to: instant.optional(), timeZone: timeZoneField.optional() })
  .prefault({})
  .transform((input, ctx) => {
    const to = input.to ?? new Date();
    const from = input.from ?? new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
    if (from > to) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: `must not be after to (${to.toISOString()})` });
      return z.NEVER;
    }
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `the range must not be longer than ${MAX_RANGE_DAYS} days` });
      return z.NEVER;
    }
    return { from, to, timeZone: input.timeZone ?? 'UTC' };
  });

export type LeadStatsRange = z.output<typeof leadStatsInput>;
