import type { z } from 'zod';
import type { Db } from '../db/knex';
import type { HotReads } from '../db/hot-reads';
import type { Principal } from '../auth/principal';
import type { WebhookUrlPolicy } from '../webhooks/url-safety';

/** Scopes are `<resource>.<action>`; `erase` only for contacts (contacts.erase). */
export type Scope = `${string}.${'read' | 'create' | 'update' | 'delete' | 'erase'}`;

/** What a handler knows about the call: the workspace and who acts in it. No req, no res. */
export interface ProcedureContext {
  db: Db;
  /** Where the leads' hot reads run outside a transaction (src/db/hot-reads.ts); given with `db`. */
  hotReads: HotReads;
  orgId: string;
  org: Principal['org'];
  actor: { kind: Principal['kind']; id: string };
  /** The caller's scopes: what events (and webhooks) it may see is narrowed by them. */
  scopes: ReadonlySet<string>;
  /** Where webhook endpoints may point (production: public https only). */
  webhookUrlPolicy: WebhookUrlPolicy;
  /** How many days a deleted record stays restorable (TRASH_RETENTION_DAYS; 30 when not given). */
  trashRetentionDays?: number;
  /** How long a webhook receiver is given to answer (WEBHOOK_TIMEOUT_MS; 5000 when not given). */
  webhookTimeoutMs?: number;
  /**
   * What this call did that the dispatcher acts on after it commits. `recordedEvents` is set
   * when the call builds event rows (src/events/record-events.ts: `recordEvents(trx, ctx, drafts)`,
   * or `newEvents(ctx, drafts)` for a write that records them in its own statement), and only
   * then: after such a call commits, runProcedure wakes the workspace's live readers
   * (`onCommitted`). A handler never sets it itself.
   */
  effects: { recordedEvents: boolean };
  /**
   * The call itself: its procedure's name and the request's id (X-Request-Id), which its history
   * entries name; with tracing on, its span's W3C traceparent, which its events keep (a webhook
   * delivery's span links to it). Null or absent when tracing is off.
   */
  call: { procedure: string; requestId: string | null; traceParent?: string | null };
}

export interface Deprecation {
  /** When it was deprecated, ISO 8601. */
  since: string;
  /** The day it stops answering, ISO 8601 (at least six months after `since`: docs/versioning.md). */
  sunset: string;
  /** The procedure to use instead. */
  replacement?: string;
}

// `Name` keeps each procedure's name as a literal type; at run time it is just the string.
export interface Procedure<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType, Name extends string = string> {
  /** `<router>.<procedure>`, the last path segment of its endpoint. */
  name: Name;
  /** GET for reads, POST for writes. */
  method: 'GET' | 'POST';
  scope: Scope;
  /**
   * Scopes the call needs besides `scope`, each checked in turn (a missing one is a 403 naming it):
   * for a procedure that does what two others do (leads.upsert creates or updates).
   */
  alsoScopes?: readonly Scope[];
  /** Whether API keys may call it at all; the app-only procedures say `false` explicitly. */
  exposed: boolean;
  /** One line for the procedure table and the reference docs. */
  description: string;
  input: Input;
  /**
   * What the handler answers with (Dates as Dates): the OpenAPI document, the client package's
   * types and the output checks (CHECK_OUTPUTS, on in every test) are all built from it.
   */
  output: Output;
  /**
   * How many requests one call counts as against its key's rate limit, 1 unless given: an
   * expensive call (webhooks.redeliver) counts as several, as a leads export does on the REST route.
   */
  cost?: number;
  /** Set when the procedure is on its way out: it answers with Deprecation and Sunset headers. */
  deprecated?: Deprecation;
  /** Its answer must be what `output` takes (a Date where it says Date): checked here by the compiler. */
  handler(args: { ctx: ProcedureContext; input: z.output<Input> }): Promise<z.input<Output>>;
}

/** Every scope a call of `procedure` needs: its `scope`, then its `alsoScopes`. */
export function scopesOf(procedure: { scope: Scope; alsoScopes?: readonly Scope[] }): Scope[] {
  return [procedure.scope, ...(procedure.alsoScopes ?? [])];
}

/** Identity at run time; exists so each procedure file infers its input and output types. */
export function defineProcedure<Input extends z.ZodType, Output extends z.ZodType, const Name extends string>(
  procedure: Procedure<Input, Output, Name>,
): Procedure<Input, Output, Name> {
  return procedure;
}
