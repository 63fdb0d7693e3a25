import { z } from 'zod';
import type { WebhookUrlPolicy } from '../webhooks/url-safety';

/** What a field needs to know about the call to parse its value: how the workspace reads phone numbers, where webhooks may point. */
export interface ParseContext {
  /** ISO 3166 region national phone numbers are read in (the workspace's setting). */
  phoneRegion: string;
  webhookUrlPolicy: WebhookUrlPolicy;
}

/**
 * zod 4 passes nothing of ours down to a field, so the context is held here for the length of one
 * synchronous parse: no other code runs meanwhile, so no other call can read it. (AsyncLocalStorage
 * would carry it across awaits too, but on Node 20 it slows every promise of the process.)
 */
let current: ParseContext | undefined;

/**
 * Parses `raw` with `context` readable by its fields (`parseContext()`), and words the issues while
 * it is (zod words them on the first read of `error`). Parses synchronously: zod's async parse costs
 * promises at every node of the schema, on every call. A schema with an async refinement makes zod
 * throw, and is parsed async: its synchronous part, which reaches every field not behind an await,
 * sees the context; a field reading it after an await throws (a 500, never another call's region).
 */
export function parseWithContext<T extends z.ZodType>(
  schema: T,
  raw: unknown,
  context: ParseContext,
): z.ZodSafeParseResult<z.output<T>> | Promise<z.ZodSafeParseResult<z.output<T>>> {
  const previous = current;
  current = context;
  try {
    const result = schema.safeParse(raw);
    if (!result.success) void result.error.issues;
    return result;
  } catch (err) {
    if (err instanceof z.core.$ZodAsyncError) return schema.safeParseAsync(raw);
    throw err;
  } finally {
    current = previous;
  }
}

/** The context of the parse under way; a field that needs it and is parsed outside `parseWithContext` is a bug. */
export function parseContext(): ParseContext {
  if (!current) throw new Error('a field read the parse context outside parseWithContext');
  return current;
}

/** The context if a parse is under way: for wording a message, which must not fail when it is not. */
export function parseContextIfAny(): ParseContext | undefined {
  return current;
}
