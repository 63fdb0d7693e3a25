import { z } from 'zod';
import { clampedWholeNumber, wholeNumber } from './fields';
import { expected } from './expected';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
/** Keeps offsets well inside what PostgreSQL and JavaScript numbers hold exactly. */
const MAX_PAGE = 10_000_000;

export const pageNumber = wholeNumber(1, MAX_PAGE);
/** Page sizes above the maximum are clamped, as the spec says, rather than refused. */
export const pageSizeNumber = clampedWholeNumber(1, MAX_PAGE_SIZE);

/** `page`/`pageSize` of every RPC list input. */
export const pageFields = {
  page: pageNumber.default(1),
  pageSize: pageSizeNumber.default(DEFAULT_PAGE_SIZE),
};

/** The same fields read from a query string, where every value arrives as text. */
const wholeNumberText = z
  .string({ error: (issue) => expected('a whole number, e.g. 2', issue.input) })
  .max(20)
  .regex(/^[+-]?\d+$/)
  .transform(Number);
export const queryPageFields = {
  page: wholeNumberText.pipe(pageNumber).default(1),
  pageSize: wholeNumberText.pipe(pageSizeNumber).default(DEFAULT_PAGE_SIZE),
};
