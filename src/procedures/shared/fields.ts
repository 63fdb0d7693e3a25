import { z } from 'zod';

/** PostgreSQL's `text` refuses the NUL character: refused here with a 400 rather than a 500 there. */
const NO_NUL = /^[^\u0000]*$/;
/** An unpaired UTF-16 surrogate (from a JSON `"\ud800"` escape) would be stored as U+FFFD, silently changed. */
const WELL_FORMED = /^[^\uD800-\uDFFF]*$/u;

/** Strings PostgreSQL can store as given, at most `maxLength` characters. */
export function text(maxLength: number) {
  return z
    .string()
    .max(maxLength)
    .regex(NO_NUL, 'must not contain the NUL character')
    .regex(WELL_FORMED, 'must be well-formed Unicode (no unpaired surrogates)');
}

/** A required, non-blank string, trimmed. */
export function requiredText(maxLength: number) {
  return z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(maxLength)
    .regex(NO_NUL, 'must not contain the NUL character')
    .regex(WELL_FORMED, 'must be well-formed Unicode (no unpaired surrogates)');
}

/** Ids are opaque strings; one that names nothing in the workspace is a 404, not a 400. */
export const idField = text(64).min(1, 'must not be empty');

/** Trimmed and lowercased before it is checked, so `" Ana@Example.COM "` is stored as `ana@example.com`. */
export const emailField = z
  .string()
  .max(320) // bounds the work of trimming; the address itself is at most 254 (RFC 5321)
  .trim()
  .toLowerCase()
  .pipe(z.email('must be an email address').max(254));

/** A phone as the caller typed it; the handler reads it in the workspace's region and stores E.164. */
export const phoneField = requiredText(40);

/**
 * A point in time: a Date (from a superjson client) or an ISO 8601 string with a time zone
 * (for plain-JSON clients such as curl). Invalid Dates are refused, and so are years outside
 * 0001-9999 (RFC 3339's range), which plain-JSON answers could not write as four-digit years.
 */
export const dateTimeField = z
  .union([z.date(), z.iso.datetime({ offset: true }).max(64).transform((s) => new Date(s))])
  .refine((d) => d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999, 'must be between the years 0001 and 9999');
