import type { Outcome } from './http-client';

export type Operation = 'leads.create' | 'leads.update';

export interface Sample {
  op: Operation;
  /** The HTTP status ("200", "503"), or "timeout", or "network:<code>". */
  label: string;
  status: number | undefined;
  latencyMs: number;
  endedAt: number;
  /** False when a non-200 answer is not the documented error envelope (or a 503 not SERVICE_UNAVAILABLE). */
  inEnvelope: boolean;
}

export function labelOf(outcome: Outcome): string {
  if (outcome.kind === 'answer') return String(outcome.status);
  return outcome.kind === 'timeout' ? 'timeout' : `network:${outcome.error}`;
}

/** `{"error":{"json":{"message","code","data":{"code","httpStatus"}}}}` with the answer's status; a 200 carries `result.data`. */
export function isEnvelope(status: number, body: unknown): boolean {
  const b = body as { result?: { data?: unknown }; error?: { json?: { message?: unknown; code?: unknown; data?: { code?: unknown; httpStatus?: unknown } } } } | undefined;
  if (status === 200) return b?.result?.data !== undefined;
  const json = b?.error?.json;
  if (typeof json?.message !== 'string' || typeof json.code !== 'number' || json.data?.httpStatus !== status) return false;
  return status === 503 ? json.data.code === 'SERVICE_UNAVAILABLE' : typeof json.data.code === 'string';
}

export function createRecorder() {
  const samples: Sample[] = [];
  return {
    samples,
    record(op: Operation, outcome: Outcome): Sample {
      const status = outcome.kind === 'answer' ? outcome.status : undefined;
      const sample: Sample = {
        op,
        label: labelOf(outcome),
        status,
        latencyMs: outcome.latencyMs,
        endedAt: outcome.endedAt,
        inEnvelope: outcome.kind !== 'answer' || isEnvelope(outcome.status, outcome.body),
      };
      samples.push(sample);
      return sample;
    },
  };
}

export type Recorder = ReturnType<typeof createRecorder>;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
