import { randomUUID } from 'node:crypto';
import type { HttpClient, Outcome } from './http-client';
import type { Recorder } from './recorder';
import { SOURCE_PREFIX } from './database';

/** One create as its client saw it: acknowledged (with the lead's id) or, after the drain, not. */
export interface CreateAttempt {
  key: string;
  attempts: number;
  leadId?: string;
  /** The acknowledgement was a replay of an earlier answer (Idempotent-Replayed: true). */
  replayed: boolean;
  /** An answer that retrying cannot change (a 4xx other than 409 and 429): a defect of the service or of this script. */
  refusedWith?: string;
}

export interface ClientsOptions {
  http: HttpClient;
  clients: number;
  recorder: Recorder;
  /** New operations start until then. */
  until: number;
  /** Unacknowledged creates are retried until then, then given up (and counted). */
  drainUntil: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `clients` loops, each creating leads (every create under its own Idempotency-Key, retried with
 * that key and the same body until a 200 acknowledges it) and updating leads already created.
 */
export async function runClients(options: ClientsOptions): Promise<CreateAttempt[]> {
  const creates: CreateAttempt[] = [];
  const leadIds: string[] = [];
  let sequence = 0;

  async function create(): Promise<void> {
    const n = (sequence += 1);
    const attempt: CreateAttempt = { key: randomUUID(), attempts: 0, replayed: false };
    creates.push(attempt);
    // 020 7946 0xxx: the range Ofcom keeps for drama, valid and never anyone's number.
    const phone = `+442079460${String(n % 1000).padStart(3, '0')}`;
    const body = JSON.stringify({ json: { name: `Load lead ${n}`, phone, source: `${SOURCE_PREFIX}${attempt.key}` } });
    while (Date.now() < options.drainUntil) {
      attempt.attempts += 1;
      const outcome = await options.http.post('/api/v1/rpc/leads.create', body, { 'Idempotency-Key': attempt.key });
      const sample = options.recorder.record('leads.create', outcome);
      if (outcome.kind === 'answer' && outcome.status === 200) {
        attempt.leadId = (outcome.body as { result: { data: { json: { id: string } } } }).result.data.json.id;
        attempt.replayed = outcome.headers['idempotent-replayed'] === 'true';
        leadIds.push(attempt.leadId);
        return;
      }
      if (!isRetryable(outcome)) {
        attempt.refusedWith = sample.label;
        return;
      }
      await sleep(backoffMs(attempt.attempts, outcome));
    }
  }

  async function update(): Promise<void> {
    const id = leadIds[Math.floor(Math.random() * leadIds.length)]!;
    const body = JSON.stringify({ json: { id, notes: `updated ${Date.now()}` } });
    const outcome = await options.http.post('/api/v1/rpc/leads.update', body);
    options.recorder.record('leads.update', outcome);
    if (isRetryable(outcome)) await sleep(backoffMs(1, outcome));
  }

  async function client(): Promise<void> {
    while (Date.now() < options.until) {
      if (leadIds.length === 0 || Math.random() < 0.5) await create();
      else await update();
    }
  }

  await Promise.all(Array.from({ length: options.clients }, client));
  return creates;
}

/** No answer, a 5xx, 409 (the key's first request still in flight) and 429 may succeed later. */
function isRetryable(outcome: Outcome): boolean {
  if (outcome.kind !== 'answer') return true;
  return outcome.status >= 500 || outcome.status === 409 || outcome.status === 429;
}

/** The answer's Retry-After when given (at most 2 s), else 100 ms doubling to 1 s; with jitter so clients spread out. */
function backoffMs(attempt: number, outcome: Outcome): number {
  const retryAfter = outcome.kind === 'answer' ? Number(outcome.headers['retry-after']) : Number.NaN;
  const base = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 2000) : Math.min(1000, 100 * 2 ** (attempt - 1));
  return base * (0.5 + Math.random() / 2);
}
