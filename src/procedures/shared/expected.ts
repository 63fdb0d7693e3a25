/**
 * The wording of every validation message: "expected <what>, got <what was sent>". The field
 * builders (fields.ts) give zod these through its per-schema `error` option, so a message is
 * written where its field is defined, never patched afterwards.
 */

/** Text up to this long is quoted back (a wrong case or a missing `T` shows at a glance); longer text is only measured. */
export const QUOTED_TEXT_CHARS = 40;

/** How a received value is named in a message: `"qualified"`, `a number`, `null`, `an empty list`. */
export function described(input: unknown): string {
  if (input === null) return 'null';
  switch (typeof input) {
    case 'string':
      if (input === '') return 'empty text';
      if (input.trim() === '') return 'blank text';
      return input.length <= QUOTED_TEXT_CHARS ? JSON.stringify(input) : `text of ${input.length} characters`;
    case 'number':
      return Number.isFinite(input) ? `the number ${input}` : String(input);
    case 'boolean':
      return String(input);
    case 'undefined':
      return 'nothing';
    case 'object':
      if (Array.isArray(input)) return input.length === 0 ? 'an empty list' : `a list of ${input.length}`;
      if (input instanceof Date) return Number.isNaN(input.getTime()) ? 'an invalid Date' : 'a Date';
      return 'an object';
    default:
      return typeof input;
  }
}

/** `expected <what>, got <input>`; for a field left out, that it is required. */
export function expected(what: string, input: unknown): string {
  return input === undefined ? `expected ${what}; the field is required` : `expected ${what}, got ${described(input)}`;
}

/** `expected <what>, got N characters`: a too-long text is measured, not echoed (unless short enough to quote). */
export function expectedLength(what: string, input: unknown): string {
  return typeof input === 'string' && input.length > QUOTED_TEXT_CHARS ? `expected ${what}, got ${input.length} characters` : expected(what, input);
}

/** `expected <what>, got N`: the size of a list out of bounds. */
export function expectedSize(what: string, input: unknown): string {
  return Array.isArray(input) ? `expected ${what}, got ${input.length}` : expected(what, input);
}
