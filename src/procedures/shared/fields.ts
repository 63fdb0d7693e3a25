import { z } from 'zod';
import type { IdPrefix } from '../../domain/ids';
import { described, expected, expectedLength, expectedSize } from './expected';

/**
 * The field builders: every field of every input is made here (or, for values with a format such
 * as emails, phones, dates and currencies, in format-fields.ts), and says in its own zod `error`
 * what it expects, in the words of expected.ts. Each builder records the kind of field it made in
 * `fieldKinds`, so tests/integration/validation-messages.test.ts can walk every input and fail on
 * a field no builder made. A builder's schema is final: wrap it (`.optional()`, `.nullable()`),
 * never chain a check onto it, which would make an unrecorded copy.
 */
export type FieldKind =
  | 'text' | 'id' | 'email' | 'phone' | 'dateTime' | 'date' | 'currency' | 'wholeNumber' | 'enum' | 'boolean' | 'list' | 'timeZone' | 'url' | 'region';

export const fieldKinds = z.registry<{ kind: FieldKind }>();

export function withKind<T extends z.ZodType>(kind: FieldKind, schema: T): T {
  fieldKinds.add(schema, { kind });
  return schema;
}

/**
 * What a field shows in the OpenAPI document, the playground and generated clients: a realistic
 * example (never one drawn from a pattern) and any constraint the server enforces that zod's own
 * JSON Schema leaves out (a format, a pattern, a list of codes). zod's `meta` makes a copy: a
 * builder documents its schema before it records the kind.
 */
export interface FieldDocs {
  examples?: unknown[];
  format?: string;
  pattern?: string;
  enum?: readonly unknown[];
  description?: string;
}

export function documented<T extends z.ZodType>(schema: T, docs: FieldDocs | undefined): T {
  if (!docs) return schema;
  const meta = Object.fromEntries(Object.entries(docs).filter(([, value]) => value !== undefined));
  return Object.keys(meta).length === 0 ? schema : (schema.meta(meta) as T);
}

const examplesOf = (example: unknown): FieldDocs | undefined => (example === undefined ? undefined : { examples: [example] });

/**
 * What PostgreSQL's `text` stores as given: no NUL character (refused there: a 400 here rather than
 * a 500), and no unpaired UTF-16 surrogate (from a JSON `"\ud800"` escape, stored as U+FFFD,
 * silently changed; with the `u` flag a pair is one character and passes). One pattern, so the
 * document states it as one `pattern` of a typed string, which generators type as a string.
 */
const STORABLE = /^[^\u0000\uD800-\uDFFF]*$/u;
/** STORABLE with at least one character that is not white space: a required text's pattern. */
const STORABLE_NOT_BLANK = '^[^\\u0000\\uD800-\\uDFFF]*[^\\s\\u0000\\uD800-\\uDFFF][^\\u0000\\uD800-\\uDFFF]*$';
const NUL_MESSAGE = 'expected text without the NUL character (\\u0000)';
const SURROGATE_MESSAGE = 'expected well-formed Unicode text (no unpaired surrogates)';

/** `schema` refusing what PostgreSQL's `text` cannot store as given (for a string field built outside this module). */
export function storable(schema: z.ZodString): z.ZodString {
  return schema.regex(STORABLE, { error: (issue) => (String(issue.input).includes('\u0000') ? NUL_MESSAGE : SURROGATE_MESSAGE) });
}

/** A string schema's `error`: every issue worded around `what` (`too_big` measured against `longest`). */
export function words(what: string, longest = what) {
  return (issue: z.core.$ZodRawIssue) => (issue.code === 'too_big' ? expectedLength(longest, issue.input) : expected(what, issue.input));
}

/** Strings PostgreSQL can store as given, at most `maxLength` characters (`min` of them, when given). */
export function text(maxLength: number, options: { min?: number; what?: string; example?: string } = {}) {
  const what = options.what ?? `text of ${options.min ? `${options.min} to ` : 'at most '}${maxLength} characters`;
  const schema = storable(z.string({ error: words(what) }).max(maxLength));
  return withKind('text', documented(options.min ? schema.min(options.min) : schema, examplesOf(options.example)));
}

/** A required, non-blank string, trimmed. */
export function requiredText(maxLength: number, options: { example?: string } = {}) {
  const what = `non-blank text of at most ${maxLength} characters`;
  // Non-blank in JSON Schema's words (the text is trimmed before its length is checked), and storable.
  return withKind('text', documented(storable(z.string({ error: words(what) }).trim().min(1).max(maxLength)), { pattern: STORABLE_NOT_BLANK, ...examplesOf(options.example) }));
}

/** Control characters (C0, DEL, C1) and what `text` refuses: what an external id may not hold. */
const PRINTABLE = /^[^\u0000-\u001F\u007F-\u009F\uD800-\uDFFF]*$/u;
export const MAX_EXTERNAL_ID_LENGTH = 255;

/**
 * The caller's own id for a record (a lead's, contact's or client's `externalId`, a sync's key):
 * 1 to 255 printable characters, kept exactly as sent (no trimming: it is compared, never read).
 * Unique per workspace and resource (the database's unique index; a taken one is a 409).
 */
export const externalIdField = withKind('text', documented(
  z.string({ error: words(`an external id: text of 1 to ${MAX_EXTERNAL_ID_LENGTH} printable characters`) })
    .min(1)
    .max(MAX_EXTERNAL_ID_LENGTH)
    .regex(PRINTABLE, {
      error: (issue) => {
        const input = String(issue.input);
        if (input.includes('\u0000')) return NUL_MESSAGE;
        return /[\uD800-\uDFFF]/u.test(input) ? SURROGATE_MESSAGE : 'expected an external id of printable characters (no control characters such as tabs or line breaks)';
      },
    }),
  { examples: ['crm-000123'], description: `Your own id for the record (1 to ${MAX_EXTERNAL_ID_LENGTH} printable characters), unique in the workspace.` },
));

const ID_NOUNS: Record<IdPrefix, string> = {
  org: 'workspace', mem: 'member', con: 'contact', lead: 'lead', cli: 'client', task: 'task', inv: 'invoice', line: 'invoice line',
  key: 'API key', call: 'call', evt: 'event', wh: 'webhook endpoint', dlv: 'webhook delivery', imp: 'import', hist: 'history entry', era: 'erasure',
};
/** What ids look like (src/domain/ids.ts: a prefix and 22 base62 characters); any text is taken. */
const ID_EXAMPLE = '3kTMd9VbX2qLr7NwY5pHcZ';
/** The example id of a record kind, as documents and output examples show it. */
export const exampleIdOf = (prefix: IdPrefix): string => `${prefix}_${ID_EXAMPLE}`;
const MAX_ID_LENGTH = 64;

function idSchema(what: string, longest: string) {
  return storable(z.string({ error: words(what, longest) }).max(MAX_ID_LENGTH)).min(1);
}

/**
 * An id of the record kind its prefix names (`lead_...`). Ids are opaque: the prefix is not
 * enforced, and one that names nothing in the workspace is a 404, not a 400 (see referenceTo).
 * `orUnassigned`: a list filter on an assignee also takes the literal `unassigned`.
 */
export function idOf(prefix: IdPrefix, options: { orUnassigned?: boolean } = {}) {
  const noun = ID_NOUNS[prefix];
  const example = `e.g. ${prefix}_${ID_EXAMPLE}${options.orUnassigned ? ', or "unassigned"' : ''}`;
  const article = /^[aeiouAEIOU]/.test(noun) ? 'an' : 'a';
  const schema = idSchema(`${article} ${noun} id, ${example}`, `${article} ${noun} id of at most ${MAX_ID_LENGTH} characters, ${example}`);
  return withKind('id', documented(schema, { examples: [exampleIdOf(prefix)] }));
}

/** An id whose kind the input does not fix (the developer routes' paths); procedures use idOf. */
export const idField = withKind('id', idSchema(`an id (text of 1 to ${MAX_ID_LENGTH} characters)`, `an id of at most ${MAX_ID_LENGTH} characters`));

/**
 * An integer in [min, max] (no maximum when `max` is undefined); `what` names it ("a whole number
 * of minor units"), `note` follows the range ("e.g. 1999 for 19.99").
 */
function wholeNumberSchema(min: number, max: number | undefined, what = 'a whole number', note?: string) {
  const range = max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
  const expectation = `${what} ${range}${note ? ` (${note})` : ''}`;
  const schema = z.number({ error: (issue) => expected(expectation, issue.input) }).int().min(min);
  return max === undefined ? schema : schema.max(max);
}

export function wholeNumber(min: number, max: number | undefined, what?: string, note?: string, example?: number) {
  return withKind('wholeNumber', documented(wholeNumberSchema(min, max, what, note), examplesOf(example)));
}

/** A whole number at least `min` where more than `clampAt` is read as `clampAt` (page sizes, as the spec says). */
export function clampedWholeNumber(min: number, clampAt: number) {
  return withKind('wholeNumber', wholeNumberSchema(min, undefined, 'a whole number', `above ${clampAt} reads as ${clampAt}`).transform((n) => Math.min(n, clampAt)));
}

/** Longest list of allowed values written out in full; a longer one is shown by a few examples. */
const LISTED_VALUES_CHARS = 120;

/** One of `values`, listed in the message (or a few of them, for `noun`, when they are many). */
export function enumOf<const T extends readonly string[]>(values: T, noun = 'a known value') {
  const all = values.join(', ');
  const what = all.length <= LISTED_VALUES_CHARS ? `one of ${all}` : `${noun}, e.g. ${values.slice(0, 3).join(', ')} (${values.length} in all)`;
  return withKind('enum', z.enum(values, { error: (issue) => expected(what, issue.input) }));
}

export const booleanField = withKind('boolean', z.boolean({ error: (issue) => expected('true or false', issue.input) }));

/** A list of `item`s, `of` naming them ("phone numbers"); `emptyMessage` replaces the one for a list under `min`. */
export function listOf<T extends z.ZodType>(item: T, options: { of: string; max: number; min?: number; emptyMessage?: string }) {
  const { of, max, min, emptyMessage } = options;
  const what = `a list of ${min ? `${min} to ${max}` : `at most ${max}`} ${of}`;
  const schema = z
    .array(item, {
      error: (issue: z.core.$ZodRawIssue) => {
        if (issue.code === 'too_small' && emptyMessage) return emptyMessage;
        return issue.code === 'too_big' || issue.code === 'too_small' ? expectedSize(what, issue.input) : expected(`a list (JSON array) of ${of}`, issue.input);
      },
    })
    .max(max);
  return withKind('list', min ? schema.min(min) : schema);
}

/**
 * An input object taking exactly these fields. Its message for a wrong type names them, and so
 * does the one for an unknown field (`pagesize: unknown field; expected only the fields ...`, put
 * together by src/errors/zod-issues.ts, which gives each unknown key its own issue).
 */
export function objectOf<S extends z.core.$ZodLooseShape>(shape: S) {
  const keys = Object.keys(shape);
  const fields = keys.length === 0 ? 'no fields' : `the fields ${keys.join(', ')}`;
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return keys.length === 0 ? 'expected no fields' : `expected only ${fields}`;
      if (issue.input === undefined) return `expected an object with ${fields}; none was given`;
      return `expected an object with ${fields}, got ${described(issue.input)}`;
    },
  });
}
