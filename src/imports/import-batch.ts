import type { Knex } from 'knex';
import type { Db } from '../db/knex';
import * as importsQueries from '../db/imports';
import * as leads from '../db/leads';
import { existingInWorkspace, heldExternalIds } from '../db/references';
import { AppError } from '../errors/app-error';
import { toAppError } from '../errors/to-app-error';
import { zodFieldIssues } from '../errors/zod-issues';
import { uniqueInOrder } from '../domain/phone';
import { parseWithContext } from '../rpc/parse-context';
import { newEvents, type EventSource } from '../events/record-events';
import { leadCreatedEvents } from '../events/lead-events';
import { leadsCreateInput } from '../procedures/leads/create';
import { heldLeadChange, leadsUpsertInput, type LeadsUpsertInput } from '../procedures/leads/upsert';
import type { UploadedRow } from './read-upload';
import { rawInputOf, rowTextOf, type RowProblem } from './row-input';

// One batch of an import's rows: each validated with leads.create's (or leads.upsert's) schema and
// references, with their messages, then written as those procedures write, and the job's cursor
// and counts moved in the same transaction (src/db/imports/jobs.ts). A row that fails leaves
// nothing of itself: it is refused before the write, or its write is undone alone (a savepoint).

export interface BatchJob {
  db: Db;
  claim: importsQueries.ClaimedImport;
  phoneRegion: string;
  leaseMs: number;
  /** A dry run in upsert mode: the external ids earlier rows would have created (which later rows would change). */
  seenExternalIds: Set<string>;
}

type CreateInput = ReturnType<typeof leadsCreateInput.parse>;
interface Valid { row: UploadedRow; input: CreateInput | LeadsUpsertInput }
interface Failed { row: UploadedRow; problems: RowProblem[] }

/** A batch's rows through the procedure's schema (parseBatch), waiting for their reference checks and write (writeBatch). */
export interface ParsedBatch {
  rows: readonly UploadedRow[];
  valid: Valid[];
  failed: Failed[];
}

/**
 * Writes (or, in a dry run, counts) one parsed batch; answers the job as it stands after, or
 * undefined when the job is no longer this claim's. The references are checked here, once every
 * earlier batch has committed, so a row sees the external ids those rows took.
 */
export async function writeBatch(
  job: BatchJob,
  parsed: ParsedBatch,
  from: importsQueries.ImportCursor,
  to: importsQueries.ImportCursor,
): Promise<importsQueries.ImportRow | undefined> {
  const { claim } = job;
  const { rows } = parsed;
  const orgId = claim.row.org_id;
  const { valid, failed } = await checkReferences(job, parsed);
  return job.db.transaction(async (trx) => {
    if (!(await importsQueries.holdForBatch(trx, claim, from))) return undefined;
    const counts = { processed: rows.length, created: 0, updated: 0, failed: 0, errors: 0 };
    if (claim.row.dry_run) Object.assign(counts, await dryRunCounts(job, trx, valid));
    else if (claim.row.mode === 'create') counts.created = await createAll(trx, orgId, sourceOf(claim), valid, failed);
    else Object.assign(counts, await upsertAll(trx, orgId, sourceOf(claim), valid, failed));
    counts.failed = failed.length;
    const errors = failed.flatMap(({ row, problems }) => problems.map((p, issue) => ({ line: row.line, issue, field: p.field, message: p.message, rowText: rowTextOf(row) })));
    const room = Math.max(0, importsQueries.MAX_ERRORS_KEPT - claim.row.errors_recorded);
    const kept = errors.slice(0, room);
    await importsQueries.insertErrors(trx, orgId, claim.row.id, kept);
    counts.errors = kept.length;
    const after = await importsQueries.advance(trx, claim, { to, counts, leaseMs: job.leaseMs });
    claim.row.errors_recorded = after.errors_recorded;
    return after;
  });
}

/**
 * Who the import's events name: the key (or token) that uploaded it. Its history entries name the
 * procedure `import` and, for a request id, the import's id: the upload's request ended long before.
 */
function sourceOf(claim: importsQueries.ClaimedImport): EventSource {
  return { orgId: claim.row.org_id, actor: { kind: claim.row.actor_kind, id: claim.row.actor_id }, call: { procedure: 'import', requestId: claim.row.id } };
}

/** Rows parsed between yields to the event loop: a batch's parse runs beside the previous batch's write, whose statements wait for the loop. */
const ROWS_PER_TURN = 50;

/**
 * Every row through the procedure's schema (sync, in the workspace's phone region), a few rows
 * per turn of the event loop. Reads nothing from the database: it may run while the previous
 * batch is being written.
 */
export async function parseBatch(job: BatchJob, rows: readonly UploadedRow[]): Promise<ParsedBatch> {
  const { claim } = job;
  const schema = claim.row.mode === 'upsert' ? leadsUpsertInput : leadsCreateInput;
  const context = { phoneRegion: job.phoneRegion, webhookUrlPolicy: 'production' as const };
  const valid: Valid[] = [];
  const failed: Failed[] = [];
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % ROWS_PER_TURN === 0) await new Promise(setImmediate);
    const row = rows[i]!;
    const raw = rawInputOf(row, claim.row.columns);
    if ('problem' in raw) {
      failed.push({ row, problems: [raw.problem] });
      continue;
    }
    let parsed = parseWithContext(schema, raw.input, context);
    if (parsed instanceof Promise) parsed = await parsed;
    if (parsed.success) valid.push({ row, input: parsed.data });
    else failed.push({ row, problems: zodFieldIssues(parsed.error).issues.map((i) => ({ field: i.path.join('.'), message: i.message })) });
  }
  return { rows, valid, failed };
}

/**
 * The references of the rows that passed the schema, in one statement each: assignees that are
 * members, and in create mode external ids no lead holds (nor an earlier row of the batch).
 */
async function checkReferences(job: BatchJob, parsed: ParsedBatch): Promise<{ valid: Valid[]; failed: Failed[] }> {
  const { claim } = job;
  const { valid } = parsed;
  const failed = [...parsed.failed];
  const orgId = claim.row.org_id;
  const members = await existingInWorkspace(job.db, 'orgMembers', orgId, valid.flatMap((v) => (v.input.assignedToId ? [v.input.assignedToId] : [])));
  const held = claim.row.mode === 'create'
    ? await heldExternalIds(job.db, orgId, valid.flatMap((v) => (v.input.externalId ? [v.input.externalId] : [])))
    : new Set<string>();
  const taken = new Set<string>();
  const kept: Valid[] = [];
  for (const v of valid) {
    const problems: RowProblem[] = [];
    if (v.input.assignedToId && !members.has(v.input.assignedToId)) {
      problems.push({ field: 'assignedToId', message: `no member ${JSON.stringify(v.input.assignedToId)} in this workspace` });
    }
    const externalId = claim.row.mode === 'create' ? v.input.externalId : undefined;
    if (externalId !== undefined && (held.has(externalId) || taken.has(externalId))) {
      problems.push({ field: 'externalId', message: 'another lead of this workspace holds this external id' });
    }
    if (problems.length > 0) failed.push({ row: v.row, problems });
    else {
      if (externalId !== undefined) taken.add(externalId);
      kept.push(v);
    }
  }
  failed.sort((a, b) => a.row.line - b.row.line);
  return { valid: kept, failed };
}

/**
 * Create mode: every valid row as leads.create makes it, in bulk (createLeadsInBulk). Should the
 * database refuse the bulk write (an external id or an assignee taken away since the checks), the
 * batch is written lead by lead, each with createLead in a savepoint, and a refused one joins
 * `failed` with leads.create's message. Answers how many were created.
 */
async function createAll(trx: Knex.Transaction, orgId: string, source: EventSource, valid: readonly Valid[], failed: Failed[]): Promise<number> {
  const made = valid.map((v) => ({ v, created: newLeadOf(v.input as CreateInput) }));
  try {
    await trx.transaction((bulk) => leads.createLeadsInBulk(bulk, orgId, made.map((m) => m.created), made.flatMap((m) => newEvents(source, leadCreatedEvents(m.created)))));
    return made.length;
  } catch (err) {
    if (toAppError(err).code !== 'CONFLICT') throw err;
  }
  let created = 0;
  for (const { v, created: one } of made) {
    const refused = await rowProblems(() => trx.transaction((row) => leads.createLead(row, orgId, one.lead, newEvents(source, leadCreatedEvents(one)))));
    if (refused) failed.push({ row: v.row, problems: refused });
    else created++;
  }
  failed.sort((a, b) => a.row.line - b.row.line);
  return created;
}

/** leads.create's handler, to the lead and contact it writes. */
function newLeadOf(input: CreateInput | LeadsUpsertInput) {
  const phones = uniqueInOrder([input.phone, ...(input.phones ?? [])]);
  const emails = uniqueInOrder([...(input.email ? [input.email] : []), ...(input.emails ?? [])]);
  return leads.newLead({ name: input.name, phones, emails, company: input.company ?? null }, {
    status: input.status ?? 'NOT_CONTACTED',
    source: input.source ?? null,
    notes: input.notes ?? null,
    nextCallAt: input.nextCallAt ?? null,
    assignedToId: input.assignedToId ?? null,
    clientId: null,
    externalId: input.externalId ?? null,
  });
}

/**
 * Upsert mode: row after row, in the file's order, each as leads.upsert writes it (in a
 * savepoint): of two rows with one external id the later wins, as two calls would. A deadlock with
 * another import upserting the same ids is retried for the row.
 */
async function upsertAll(trx: Knex.Transaction, orgId: string, source: EventSource, valid: readonly Valid[], failed: Failed[]) {
  const counts = { created: 0, updated: 0 };
  for (const v of valid) {
    let created = false;
    const refused = await rowProblems(() => trx.transaction(async (row) => {
      created = await upsertRow(row, orgId, source, v.input as LeadsUpsertInput);
    }));
    if (refused) failed.push({ row: v.row, problems: refused });
    else if (created) counts.created++;
    else counts.updated++;
  }
  failed.sort((a, b) => a.row.line - b.row.line);
  return counts;
}

/**
 * One row as leads.upsert writes it (src/procedures/leads/upsert.ts: the same change, checks and
 * events), the other way round: the lead holding the id is changed if there is one, else the lead
 * is created with createLead (leads.create's statement). leads.upsert's create-unless-held
 * statement inserts the lead before its contact, which Citus runs part by part inside a
 * multi-statement transaction (the lead's foreign key then fails); createLead inserts the contact
 * first. An import creating the same id meanwhile makes the create fail (23505): the row is tried
 * again and then changes that lead. Answers whether it created the lead.
 */
async function upsertRow(trx: Knex.Transaction, orgId: string, source: EventSource, input: LeadsUpsertInput): Promise<boolean> {
  for (let round = 0; ; round++) {
    const changed = await leads.upsertLead(trx, orgId, { externalId: input.externalId, ...heldLeadChange(input, source) });
    if (changed) return false;
    if (input.expectedUpdatedAt !== undefined) {
      throw new AppError('CONFLICT', `No lead of this workspace holds externalId ${JSON.stringify(input.externalId)}: expectedUpdatedAt names a version of one that is not there`);
    }
    const created = newLeadOf(input);
    try {
      await trx.transaction((row) => leads.createLead(row, orgId, created.lead, newEvents(source, leadCreatedEvents(created))));
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code !== '23505' || round >= 2) throw err;
    }
  }
}

/** A dry run's counts: every valid row would be created, or in upsert mode changed when a lead (or an earlier row) holds its id. */
async function dryRunCounts(job: BatchJob, trx: Knex.Transaction, valid: readonly Valid[]) {
  if (job.claim.row.mode === 'create') return { created: valid.length, updated: 0 };
  const held = await heldExternalIds(trx, job.claim.row.org_id, valid.map((v) => v.input.externalId!));
  let created = 0;
  for (const v of valid) {
    const id = v.input.externalId!;
    if (!held.has(id) && !job.seenExternalIds.has(id)) created++;
    job.seenExternalIds.add(id);
  }
  return { created, updated: valid.length - created };
}

const RETRIED = new Set(['40001', '40P01']);
const ROW_ATTEMPTS = 3;

/**
 * Runs one row's write: undefined when it succeeded, else its problems as the procedure answers
 * them (a 409 for a taken external id, a 400 for a status rule). A deadlock or serialization
 * failure is tried again; the database or the service failing is not the row's fault, and fails
 * the batch (the job is tried again at its cursor).
 */
async function rowProblems(write: () => Promise<unknown>): Promise<RowProblem[] | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      await write();
      return undefined;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && RETRIED.has(code) && attempt < ROW_ATTEMPTS) continue;
      const error = err instanceof AppError ? err : toAppError(err);
      if (error.code === 'INTERNAL_SERVER_ERROR' || error.code === 'SERVICE_UNAVAILABLE') throw err;
      return error.issues?.length ? error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })) : [{ field: '', message: error.message }];
    }
  }
}
