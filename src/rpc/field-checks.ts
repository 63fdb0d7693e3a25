import { z } from 'zod';
import { AppError, invalidInput, type FieldIssue } from '../errors/app-error';
import { zodFieldIssues } from '../errors/zod-issues';
import type { Db } from '../db/knex';
import type { WebhookUrlPolicy } from '../webhooks/url-safety';

/**
 * Checks of a field's value that need I/O (the database, DNS), which a synchronous schema cannot
 * make: an id must name a record of the workspace, a webhook host must resolve to a public
 * address. A field builder attaches one to its schema here; the dispatcher runs them after the
 * schema, on every field that passed it (even when others failed), so one answer lists every
 * problem of an input.
 */
export interface FieldCheck {
  /** NOT_FOUND: the value names a record the workspace lacks (a 404 when nothing else is wrong). */
  failure: 'NOT_FOUND' | 'BAD_REQUEST';
  /** Why the value, which passed its schema, is refused; undefined when it is fine. */
  check(value: string, ctx: FieldCheckContext): Promise<string | undefined>;
}

export interface FieldCheckContext {
  db: Db;
  orgId: string;
  webhookUrlPolicy: WebhookUrlPolicy;
}

/** The checks, keyed by the schema of the field they belong to (a string schema, used as it was built). */
const fieldChecks = new WeakMap<z.ZodType, FieldCheck>();

/** Gives `schema` (the final schema of a field builder) a check; answers the schema. */
export function withFieldCheck<T extends z.ZodType>(schema: T, check: FieldCheck): T {
  fieldChecks.set(schema, check);
  return schema;
}

interface CheckedField {
  path: string[];
  check: FieldCheck;
}

const found = new WeakMap<z.ZodType, CheckedField[]>();

/** Wrappers that keep their field's value as it is: the check of the field inside them applies. */
const TRANSPARENT = new Set(['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

/**
 * Every checked field of an input schema, by path; found once per schema. Checks are taken in
 * objects and the wrappers above; one inside a list, a union or any other type throws (at start-up:
 * the registry asks for each procedure's), rather than being silently skipped.
 */
export function checkedFieldsOf(schema: z.ZodType): CheckedField[] {
  let fields = found.get(schema);
  if (!fields) {
    fields = [];
    collect(schema, [], fields, undefined);
    found.set(schema, fields);
  }
  return fields;
}

function collect(schema: z.ZodType, path: string[], into: CheckedField[], unsupported: string | undefined): void {
  const check = fieldChecks.get(schema);
  if (check) {
    if (unsupported) throw new Error(`a checked field at ${path.join('.') || 'the input'} is inside a ${unsupported}, where checks are not run`);
    into.push({ path, check });
    return;
  }
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  if (def.type === 'object') {
    for (const [key, inner] of Object.entries(def.shape as Record<string, z.ZodType>)) collect(inner, [...path, key], into, unsupported);
  } else if (TRANSPARENT.has(def.type)) {
    collect(def.innerType as z.ZodType, path, into, unsupported);
  } else if (def.type === 'pipe') {
    collect(def.in as z.ZodType, path, into, unsupported);
    collect(def.out as z.ZodType, path, into, 'pipe output');
  } else {
    for (const inner of childSchemas(def)) collect(inner, path, into, def.type);
  }
}

/** Schemas nested in any other type (list items, union options, record values...), searched only to refuse a check there. */
function childSchemas(def: Record<string, unknown>): z.ZodType[] {
  const values = Object.values(def).flatMap((v) => (Array.isArray(v) ? v : [v]));
  return values.filter((v): v is z.ZodType => v instanceof z.ZodType);
}

/** A field check's refusal, at its field. */
export interface CheckedIssue extends FieldIssue {
  failure: FieldCheck['failure'];
}

/**
 * Runs the checks of `schema`'s fields on `input` (the parsed value, or the raw one when the schema
 * failed with `schemaError`), skipping fields absent, null, or with a schema issue in or around them.
 * One at a time: most inputs have none or one, and a call holds one connection.
 */
export async function runFieldChecks(schema: z.ZodType, input: unknown, ctx: FieldCheckContext, schemaError?: z.ZodError): Promise<CheckedIssue[]> {
  const fields = checkedFieldsOf(schema);
  if (fields.length === 0) return [];
  // An unknown key is a problem of its own field, not of the object holding it.
  const failed = (schemaError?.issues ?? []).filter((issue) => issue.code !== 'unrecognized_keys').map((issue) => issue.path);
  const issues: CheckedIssue[] = [];
  for (const { path, check } of fields) {
    const value = valueAt(input, path);
    if (typeof value !== 'string' || failed.some((issuePath) => overlaps(issuePath, path))) continue;
    const message = await check.check(value, ctx);
    if (message !== undefined) issues.push({ path, message, failure: check.failure });
  }
  return issues;
}

/**
 * The one answer to an input with problems: every schema issue and every refused check. When the
 * only problems are ids naming no record of the workspace, it is the 404 the contract gives for a
 * referenced record that does not exist (naming each); anything else makes it a 400 listing all.
 */
export function inputProblems(schemaError: z.ZodError | undefined, checked: CheckedIssue[]): AppError {
  const schema = schemaError ? zodFieldIssues(schemaError) : { issues: [], total: 0 };
  const found = checked.map(({ path, message }) => ({ path, message }));
  if (schema.total === 0 && checked.length > 0 && checked.every((issue) => issue.failure === 'NOT_FOUND')) {
    return new AppError('NOT_FOUND', found.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '), { issues: found });
  }
  return invalidInput([...schema.issues, ...found], schema.total + found.length);
}

/** Refuses `input` (which passed its schema) when a check of one of its fields fails. */
export async function assertFieldChecks(schema: z.ZodType, input: unknown, ctx: FieldCheckContext): Promise<void> {
  const checked = await runFieldChecks(schema, input, ctx);
  if (checked.length > 0) throw inputProblems(undefined, checked);
}

function valueAt(input: unknown, path: readonly string[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Whether one path is the other or inside it: an issue of the field, of a part of it, or of what holds it. */
function overlaps(a: readonly PropertyKey[], b: readonly PropertyKey[]): boolean {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) if (a[i] !== b[i]) return false;
  return true;
}
