import { z } from 'zod';
import { objectOf } from '../shared/fields';
import { dateTimeWhere, timeZoneField } from '../shared/format-fields';

const DAY_MS = 86_400_000;
export const DEFAULT_RANGE_DAYS = 30;
export const MAX_RANGE_DAYS = 366;
// Four-digit years keep the days' `YYYY-MM-DD` labels the same in JavaScript and PostgreSQL.
const EARLIEST = new Date('1970-01-01T00:00:00Z');
const LATEST = new Date('9999-01-01T00:00:00Z');

const instant = dateTimeWhere((d) => d >= EARLIEST && d < LATEST, 'a date-time from 1970-01-01 to before 9999-01-01');

/**
 * The range is half-open, [from, to): `to` defaults to now and `from` to 30 days before `to`.
 * Resolved here, so the handler always gets a checked range and a zone.
 */
export const leadStatsInput = objectOf({ from: instant.optional(), to: instant.optional(), timeZone: timeZoneField.optional() })
  // JSON Schema cannot compare two fields: the range rules are said in words.
  .meta({ description: `The half-open range [from, to): \`from\` not after \`to\`, at most ${MAX_RANGE_DAYS} days apart; \`to\` defaults to now, \`from\` to ${DEFAULT_RANGE_DAYS} days before \`to\`.` })
  .prefault({})
  .transform((input, ctx) => {
    const to = input.to ?? new Date();
    const from = input.from ?? new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
    if (from > to) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: `expected a date-time not after to (${to.toISOString()})` });
      return z.NEVER;
    }
    if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `expected a range of at most ${MAX_RANGE_DAYS} days from from` });
      return z.NEVER;
    }
    return { from, to, timeZone: input.timeZone ?? 'UTC' };
  });
