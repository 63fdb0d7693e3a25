/** The field builders of values with a format: each message names the format and shows an example. */
import { z } from 'zod';
import { phoneExample, toE164 } from '../../domain/phone';
import { CURRENCY_CODES, isCurrencyCode } from '../../domain/money';
import { IANA_NAME, isTimeZone } from '../dashboard/calendar';
import { parseContext, parseContextIfAny } from '../../rpc/parse-context';
import { expected, expectedLength } from './expected';
import { documented, storable, withKind, words } from './fields';

const EMAIL = 'an email address, e.g. ana@example.com';

/** Trimmed and lowercased before it is checked, so `" Ana@Example.COM "` is stored as `ana@example.com`. */
export const emailField = withKind(
  'email',
  z
    .string({ error: words(EMAIL, `an email address of at most 254 characters`) })
    .max(320) // bounds the work of trimming; the address itself is at most 254 (RFC 5321)
    .trim()
    .toLowerCase()
    .pipe(z.email({ error: words(EMAIL, `an email address of at most 254 characters`) }).max(254))
    // zod's own address pattern (stricter than `format: email`), around the whitespace trimmed first.
    .meta({ format: 'email', pattern: `^\\s*${z.regexes.email.source.slice(1, -1)}\\s*$`, examples: ['ana@example.com'] }),
);

/** What a phone field takes, with the workspace region's own example when a parse is under way. */
function phoneExpectation(region: string | undefined): string {
  const example = region ? phoneExample(region) : null;
  const national = region ? `the national format of region ${region}${example ? `, e.g. ${example.national}` : ''}` : "the national format of the workspace's region";
  return `a phone number in E.164, e.g. ${example?.e164 ?? '+447400123456'}, or in ${national}`;
}

const MAX_PHONE_LENGTH = 40;

/**
 * A phone as the caller typed it, read in the workspace's region (from the parse context) and
 * answered in E.164: the handler receives `+442079460018` for `020 7946 0018` in GB.
 */
export const phoneField = withKind(
  'phone',
  storable(
    z
      .string({
        error: (issue: z.core.$ZodRawIssue) => {
          const what = phoneExpectation(parseContextIfAny()?.phoneRegion);
          return issue.code === 'too_big' ? expectedLength(`${what} (at most ${MAX_PHONE_LENGTH} characters)`, issue.input) : expected(what, issue.input);
        },
      })
      .trim()
      .min(1)
      .max(MAX_PHONE_LENGTH),
  ).transform((raw, ctx) => {
    const region = parseContext().phoneRegion;
    const e164 = toE164(raw, region);
    if (e164) return e164;
    ctx.addIssue({ code: 'custom', message: expected(phoneExpectation(region), raw), input: raw });
    return z.NEVER;
    // `format: phone` (not a JSON Schema format): whether a number exists in a region is libphonenumber's call, which no pattern says.
  }).meta({ format: 'phone', examples: ['+447400123456'], description: "E.164, or the national format of the workspace's region; answered in E.164." }),
);

const DATE_TIME = 'an ISO 8601 date-time with a time zone, e.g. 2026-12-03T10:00:00Z';

/**
 * A point in time: a Date (from a superjson client) or an ISO 8601 string with a time zone
 * (for plain-JSON clients such as curl). Invalid Dates are refused, and so are years outside
 * 0001-9999 (RFC 3339's range), which plain-JSON answers could not write as four-digit years.
 */
function dateTimeSchema() {
  const error = (issue: z.core.$ZodRawIssue) => expected(DATE_TIME, issue.input);
  return z
    .union([z.date({ error }), z.iso.datetime({ offset: true, error }).max(64, { error }).transform((s) => new Date(s))], { error })
    .refine((d) => d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999, { error: 'expected a date-time between the years 0001 and 9999' });
}

const DATE_TIME_DOCS = { format: 'date-time', examples: ['2026-12-03T10:00:00Z'] };

export const dateTimeField = withKind('dateTime', documented(dateTimeSchema(), DATE_TIME_DOCS));

/** A date-time that must also satisfy `accepts`; `what` says which ones do ("a date-time in the future"). */
export function dateTimeWhere(accepts: (date: Date) => boolean, what: string) {
  return withKind('dateTime', documented(dateTimeSchema().refine(accepts, { error: (issue) => `expected ${what}, got ${(issue.input as Date).toISOString()}` }), DATE_TIME_DOCS));
}

const FIRST_DATE = Date.UTC(1900, 0, 1);
const LAST_DATE = Date.UTC(9999, 11, 31);
const DATE = 'an ISO 8601 date, e.g. 2030-01-31, or a date-time with a time zone, e.g. 2030-01-31T00:00:00Z';

/**
 * A calendar day: a Date (its UTC day is kept), an ISO 8601 date-time with a time zone, or an ISO
 * date ('2030-01-31'); answered as a Date at UTC midnight.
 */
function dateSchema() {
  const error = (issue: z.core.$ZodRawIssue) => expected(DATE, issue.input);
  return z
    .union(
      [
        z.date({ error }),
        z.iso.datetime({ offset: true, error }).max(64, { error }).transform((s) => new Date(s)),
        z.iso.date({ error }).max(10, { error }).transform((s) => new Date(`${s}T00:00:00.000Z`)),
      ],
      { error },
    )
    .transform((date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())))
    .refine((date) => date.getTime() >= FIRST_DATE && date.getTime() <= LAST_DATE, { error: 'expected a date between 1900-01-01 and 9999-12-31' });
}

export const dateField = withKind('date', documented(dateSchema(), { examples: ['2030-01-31'] }));

const CURRENCY = 'an ISO 4217 currency code in capitals, e.g. GBP';

/** ISO 4217 in capitals. Lowercase is refused (with the fix named) rather than upper-cased silently. */
export const currencyField = withKind(
  'currency',
  z
    .string({ error: words(CURRENCY) })
    // `abort`: a longer one is refused for its length alone.
    .max(3, { abort: true })
    .superRefine((value, ctx) => {
      if (isCurrencyCode(value)) return;
      const upper = value.toUpperCase();
      const message = value !== upper && isCurrencyCode(upper)
        ? `expected the currency code in capitals: ${JSON.stringify(upper)}, not ${JSON.stringify(value)}`
        : expected(CURRENCY, value);
      ctx.addIssue({ code: 'custom', message });
    })
    .meta({ enum: [...CURRENCY_CODES], examples: ['GBP'] }),
);

/** An IANA time zone name Intl knows (not an offset such as `+01:00`). */
export const timeZoneField = withKind(
  'timeZone',
  z
    .string({ error: words('an IANA time zone name, e.g. Europe/London or UTC') })
    .max(64, { abort: true })
    .refine(isTimeZone, { error: (issue) => expected('an IANA time zone name, e.g. Europe/London or UTC (not an offset)', issue.input) })
    // Not an enum: Intl also takes the zones' older aliases (US/Eastern), which no list of it names.
    .meta({ pattern: IANA_NAME.source, examples: ['Europe/London'], description: 'An IANA time zone name that Intl knows (not an offset).' }),
);
