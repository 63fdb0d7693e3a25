/**
 * The building blocks of output schemas: what procedures answer with, Dates as Dates. Outputs are
 * strict objects, so a field the contract does not name (a column leaking through) fails the
 * output check (CHECK_OUTPUTS, on in every test) as surely as a missing one. Examples are declared
 * here, so the OpenAPI document, the playground and generated clients show realistic values.
 */
import { z } from 'zod';
import type { IdPrefix } from '../../domain/ids';
import { exampleIdOf } from './fields';

/** An id of the record kind its prefix names. */
export const idOutput = (prefix: IdPrefix) => z.string().meta({ examples: [exampleIdOf(prefix)] });

/** A point in time: a Date in the answer (superjson's `meta` says so), an ISO 8601 string on the wire. */
export const timestampOutput = (example = '2026-11-26T09:30:00.000Z') => z.date().meta({ examples: [example] });

/** What a delete answers: `{ id, deleted: true }`. */
export const deletedOutput = (prefix: IdPrefix, noun: string) =>
  z.strictObject({ id: idOutput(prefix), deleted: z.literal(true) }).meta({ description: `The id of the ${noun} just deleted.` });

/** A record's `externalId`: the caller's own id for it, or null. */
export const externalIdOutput = z.string().nullable().meta({ description: 'Your own id for the record (unique in the workspace), or null.', examples: ['crm-000123'] });

/** Text with a realistic example. */
export const textOutput = (example: string) => z.string().meta({ examples: [example] });

/** An integer with a realistic example. */
export const integerOutput = (example: number) => z.number().int().meta({ examples: [example] });

export const phoneOutput = z.string().meta({ description: 'E.164.', examples: ['+447400123456'] });
export const emailOutput = z.string().meta({ format: 'email', examples: ['ana@example.com'] });

/** The pagination of a numbered-page list (src/db/pagination.ts). */
export const paginationOutput = z.strictObject({
  page: z.number().int().min(1).meta({ description: '1-indexed page just fetched.', examples: [1] }),
  pageSize: z.number().int().min(1).meta({ examples: [20] }),
  total: z.number().int().min(0).meta({ description: 'Records matching the filters across all pages.', examples: [42] }),
  totalPages: z.number().int().min(1).meta({ examples: [3] }),
  hasNextPage: z.boolean().meta({ description: 'Walk on while this is true (not up to the first totalPages).', examples: [true] }),
  hasPrevPage: z.boolean().meta({ examples: [false] }),
});

/** The leads list's pagination, which also walks by keyset cursor. */
export const cursorPaginationOutput = paginationOutput.extend({
  page: z.number().int().min(1).nullable().meta({ description: '1-indexed page just fetched; null when the page was reached by `cursor`.', examples: [1] }),
  nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` for the next page (a keyset walk); null on the last page.', examples: ['eyJ2IjoxLCJrIjpbIjIwMjYtMTItMDMiXX0'] }),
});

/** `{ data, pagination }`: a page of `item`s, as every list answers. */
export function pageOutput<T extends z.ZodType, P extends z.ZodType = typeof paginationOutput>(item: T, pagination?: P) {
  return z.strictObject({ data: z.array(item), pagination: (pagination ?? paginationOutput) as P });
}
