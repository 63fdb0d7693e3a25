import { AppError } from '../errors/app-error';
import { assertMaximumTier, assertScope, type Principal } from '../auth/principal';
import { decodeEnvelope } from './envelope';
import { assertGetInputSize } from './input-limits';
import { parseWithContext } from './parse-context';
import { assertFieldChecks, checkedFieldsOf, inputProblems, runFieldChecks } from './field-checks';
import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import type { HotReads } from '../db/hot-reads';
import type { DatabaseNodes } from '../db/nodes';
import type { AnyProcedure, Registry } from './registry';
import { scopesOf, type ProcedureContext } from './define-procedure';
import { readIdempotencyKey } from '../idempotency/idempotency-key';
import { envelopeFormat, runIdempotently, type AnswerFormat, type IdempotentAnswer } from '../idempotency/run-idempotently';
import { authenticateWithinLimits } from '../ratelimit/authenticate-within-limits';
import type { CallLimits } from '../ratelimit/rate-limiter';
import type { WebhookUrlPolicy } from '../webhooks/url-safety';
import { currentTraceParent, traceProcedure } from '../observability/tracing';

/** An action call as the HTTP edge saw it, free of Express. */
export interface RpcCall {
  name: string;
  method: string;
  authorization: string | undefined;
  contentType: string | undefined;
  /** The raw POST body; the body-size limit (413) was enforced while reading it. */
  body: Buffer | undefined;
  /** A failure reading the body other than its size, raised at the body step. */
  bodyError?: AppError;
  /** The GET `input` query parameter, as the query parser left it. */
  inputParam: unknown;
  batch: boolean;
  /** Every Idempotency-Key header value received (POST only; reads ignore it). */
  idempotencyKey?: string[];
  /** This call's rate limits; absent when rate limiting is off. */
  limits?: CallLimits;
  /** Told who called as soon as the key is verified, so a call refused later is still logged with its caller. */
  onAuthenticated?(principal: Principal): void;
  /** The request's id (X-Request-Id, src/observability/request-log.ts), which the call's history entries name. */
  requestId?: string;
}

export interface DispatchDeps {
  registry: Registry;
  db: Db;
  /** Handed to each procedure as `ctx.hotReads`. */
  hotReads: HotReads;
  /** Each call's database work runs within its workspace's node's bulkhead and breaker. */
  nodes: DatabaseNodes;
  authenticate(authorization: string | undefined): Promise<Principal>;
  /** Where webhook endpoints may point; `production` unless the app was built for development or tests. */
  webhookUrlPolicy: WebhookUrlPolicy;
  /** Set (CHECK_OUTPUTS): every output is parsed with its procedure's output schema; a mismatch is a 500, reported here. */
  onOutputMismatch?(procedure: string, issues: unknown): void;
  /** How long deleted records stay restorable (TRASH_RETENTION_DAYS); handed to each procedure. */
  trashRetentionDays?: number;
  /** WEBHOOK_TIMEOUT_MS: how long webhooks.sendTestEvent waits for the receiver, as the worker does. */
  webhookTimeoutMs?: number;
  /** Told after a call that recorded events has committed (ctx.effects.recordedEvents), with its workspace: live readers are woken by it. */
  onCommitted?(orgId: string): void;
}

/**
 * Runs one action call through every check, in the documented order:
 * client address past its failed-authentication budget (429) -> authenticate (401) -> the key's
 * rate limit (429) -> tier -> batch refused -> look up -> method -> content type and envelope ->
 * exposed -> scope -> input (its schema, and the checks of its fields that need the database,
 * answered together) -> idempotency key -> handler (the steps from `exposed` on are runProcedure's,
 * which the REST lead routes share). The caller wraps the output in the envelope, or writes
 * `answer` as it is when the call carried an Idempotency-Key.
 */
export async function dispatch(
  deps: DispatchDeps,
  call: RpcCall,
): Promise<{ principal: Principal; procedure: AnyProcedure; output: unknown; answer?: IdempotentAnswer }> {
  const principal = await authenticateWithinLimits(deps.authenticate, call.authorization, call.limits, call.onAuthenticated);
  assertMaximumTier(principal);
  if (call.batch) {
    throw new AppError('BAD_REQUEST', 'Batching is not supported: send one call per request (use httpLink, not httpBatchLink)');
  }
  const procedure = deps.registry.get(call.name);
  if (!procedure) throw new AppError('NOT_FOUND', `No procedure named ${JSON.stringify(call.name)}`);
  if (call.method !== procedure.method) {
    const kind = procedure.method === 'GET' ? 'a read: use GET' : 'a write: use POST';
    // A procedure is served to its one method (HEAD on a query too is a 405), which Allow names.
    throw new AppError('METHOD_NOT_SUPPORTED', `${procedure.name} is ${kind}`, { headers: { Allow: procedure.method } });
  }
  const rawInput = procedure.method === 'GET' ? readQueryInput(call.inputParam) : readBodyInput(call);
  const { output, answer } = await runProcedure(deps, { procedure, rawInput, principal, idempotencyKey: call.idempotencyKey, body: call.body, requestId: call.requestId });
  return { principal, procedure, output, answer };
}

/** One call of a procedure, its input decoded from whatever the route received. */
export interface ProcedureCall {
  procedure: AnyProcedure;
  rawInput: unknown;
  principal: Principal;
  /** Every Idempotency-Key header value received; honoured for a POST procedure only (reads ignore it). */
  idempotencyKey?: string[];
  /** The raw body, fingerprinted with the key. */
  body?: Buffer;
  /**
   * How a keyed call's answer is stored and under what name (a distinct name never replays another's
   * answer); by default the procedure's name and the envelope of the action endpoints.
   */
  stored?: { label: string; format: AnswerFormat };
  /** The request's id, which the call's history entries name. */
  requestId?: string;
  /** Runs first, in one transaction with the field checks and the handler (a REST `If-Match`). */
  precondition?(trx: Knex.Transaction): Promise<void>;
}

/**
 * The steps after the route has found the procedure and decoded its input, shared by the action
 * endpoints and the REST lead routes so both answer with the same rules and messages:
 * exposed -> scope -> (the workspace's node: bulkhead and breaker) -> input (its schema, and the
 * checks of its fields that need the database, answered together) -> idempotency key -> handler
 * -> output check. No tier rule here: it belongs to the action endpoints (dispatch).
 */
export function runProcedure(deps: DispatchDeps, call: ProcedureCall): Promise<{ output: unknown; answer?: IdempotentAnswer }> {
  // The call's span (tracing on): its statements are its children, its failure its error code.
  return traceProcedure(call.procedure, call.principal, async () => {
    const { procedure, principal } = call;
    if (!procedure.exposed) throw new AppError('FORBIDDEN', `${procedure.name} is not exposed to the API`);
    for (const scope of scopesOf(procedure)) assertScope(principal, scope);
    // From here on the call reads its workspace: a node that does not answer fails it fast (503),
    // and its calls never hold more than their share of the pool.
    return deps.nodes.run(principal.orgId, () => runOnNode(deps, call));
  });
}

async function runOnNode(deps: DispatchDeps, call: ProcedureCall): Promise<{ output: unknown; answer?: IdempotentAnswer }> {
  const { procedure, rawInput, principal } = call;
  let parsed = parseWithContext(procedure.input, rawInput, { phoneRegion: principal.org.phoneRegion, webhookUrlPolicy: deps.webhookUrlPolicy });
  if (parsed instanceof Promise) parsed = await parsed;
  const checks = { db: deps.db, orgId: principal.orgId, webhookUrlPolicy: deps.webhookUrlPolicy };
  if (!parsed.success) {
    // Every problem in one answer: the fields that passed the schema are still checked (their ids looked up).
    throw inputProblems(parsed.error, await runFieldChecks(procedure.input, rawInput, checks, parsed.error));
  }
  const input = parsed.data;
  // Marked when the call's events are built (ProcedureContext's `effects`); read after it commits.
  const effects = { recordedEvents: false };
  // The field checks run on the db the handler gets: in the idempotent transaction, a 404 is the
  // call's stored answer as the handler's own would be, and a replay never checks again.
  const hasChecks = checkedFieldsOf(procedure.input).length > 0;
  const handle = async (db: Db) => {
    if (hasChecks) await assertFieldChecks(procedure.input, input, { ...checks, db });
    const ctx: ProcedureContext = {
      db, hotReads: deps.hotReads, orgId: principal.orgId, org: principal.org, actor: { kind: principal.kind, id: principal.id },
      scopes: principal.scopes, webhookUrlPolicy: deps.webhookUrlPolicy, effects, trashRetentionDays: deps.trashRetentionDays, webhookTimeoutMs: deps.webhookTimeoutMs,
      call: { procedure: procedure.name, requestId: call.requestId ?? null, traceParent: currentTraceParent() },
    };
    const output = await procedure.handler({ ctx, input });
    if (deps.onOutputMismatch) assertOutput(procedure, output, deps.onOutputMismatch);
    return output;
  };
  const { precondition } = call;
  const run = precondition
    ? (db: Db) => db.transaction(async (trx) => {
      await precondition(trx);
      return handle(trx);
    })
    : handle;
  const idempotencyKey = procedure.method === 'POST' ? readIdempotencyKey(call.idempotencyKey) : undefined;
  if (idempotencyKey !== undefined) {
    const stored = call.stored ?? { label: procedure.name, format: envelopeFormat(procedure.name) };
    const answer = await runIdempotently(
      deps.db,
      { orgId: principal.orgId, principalId: principal.id, key: idempotencyKey, procedure: stored.label, body: call.body ?? Buffer.alloc(0), format: stored.format },
      run,
    );
    wakeLiveReaders(deps, principal.orgId, effects);
    return { output: undefined, answer };
  }
  const output = await run(deps.db);
  wakeLiveReaders(deps, principal.orgId, effects);
  return { output };
}

/**
 * After a call has committed: when it recorded events, the workspace's live readers are woken
 * (event feeds, lead stats). A call that recorded none (a read, an API key's creation, an
 * idempotent replay, whose handler did not run) wakes no one.
 */
function wakeLiveReaders(deps: DispatchDeps, orgId: string, effects: ProcedureContext['effects']): void {
  if (effects.recordedEvents) deps.onCommitted?.(orgId);
}

/** Inside the idempotent transaction, so a mismatching answer is never stored for replay. */
function assertOutput(procedure: AnyProcedure, output: unknown, report: NonNullable<DispatchDeps['onOutputMismatch']>): void {
  const checked = procedure.output.safeParse(output);
  if (checked.success) return;
  report(procedure.name, checked.error.issues);
  throw new AppError('INTERNAL_SERVER_ERROR', `${procedure.name} answered outside its output schema`);
}

/** The GET `input` query parameter decoded (reads and subscriptions). */
export function readQueryInput(param: unknown): unknown {
  if (param === undefined) return undefined;
  if (typeof param !== 'string') throw new AppError('BAD_REQUEST', 'Give the "input" query parameter once');
  assertGetInputSize(param);
  return decodeEnvelope(param);
}

const JSON_MEDIA_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** 415 unless the body is declared as UTF-8 JSON; then the body's own reading error, if any (both the RPC and REST rule). */
export function assertJsonBody(contentType: string | undefined, bodyError: AppError | undefined): void {
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType.trim())) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as Content-Type: application/json (UTF-8)');
  }
  if (bodyError) throw bodyError;
}

function readBodyInput(call: RpcCall): unknown {
  assertJsonBody(call.contentType, call.bodyError);
  if (!call.body || call.body.length === 0) throw new AppError('BAD_REQUEST', 'Missing body: send {"json": <input>}');
  return decodeEnvelope(call.body.toString('utf8'));
}
