import type { ProcedureOutput } from './procedures.js';
import { callProcedure } from './rpc.js';
import { restError } from './leads-rest.js';
import { sleep } from './retry-policy.js';
import type { RawAnswer, Transport } from './transport.js';

/** An import job, as `imports.getById` answers it (Dates as Dates). */
export type Import = ProcedureOutput<'imports.getById'>;

/** A file to import: its text or bytes, a Blob, a web ReadableStream, or a Node stream (any async iterable of bytes). */
export type ImportFile = string | Uint8Array | Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface ImportCreateOptions {
  /** csv (a header row naming the columns, the default) or ndjson (one leads.create input per line). */
  format?: 'csv' | 'ndjson';
  /** create (default): a new lead per row; upsert: by externalId, create or change. */
  mode?: 'create' | 'upsert';
  /** Check and count every row, write nothing. */
  dryRun?: boolean;
  signal?: AbortSignal;
}

export interface ImportWaitOptions {
  /** How often the import is read again; 1 s by default. */
  intervalMs?: number;
  signal?: AbortSignal;
}

const PATH = '/api/v1/imports';
const MEDIA_TYPES = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;

/**
 * `POST /api/v1/imports`: uploads the file (streamed as it is read when it is a stream, never
 * gathered whole here) and answers the queued import. Sent once: a file stream cannot be sent
 * again, so an upload is not retried (a 429 or 503 is thrown for the caller to decide).
 */
export async function createImport(t: Transport, file: ImportFile, options: ImportCreateOptions = {}): Promise<Import> {
  const query = new URLSearchParams({ resource: 'leads', mode: options.mode ?? 'create' });
  if (options.dryRun) query.set('dryRun', 'true');
  const streamed = typeof file !== 'string' && !(file instanceof Uint8Array) && !(typeof Blob !== 'undefined' && file instanceof Blob);
  const body = streamed && !(file instanceof ReadableStream) ? streamOf(file as AsyncIterable<Uint8Array>) : file;
  // fetch's body and `duplex` (which a streamed body needs) are beyond FetchLike's JSON-only shape.
  const init = {
    method: 'POST' as const,
    headers: { Authorization: `Bearer ${t.apiKey}`, Accept: 'application/json', 'Content-Type': MEDIA_TYPES[options.format ?? 'csv'] },
    body: body as unknown as string,
    signal: options.signal,
    credentials: 'omit' as const,
    ...(streamed ? { duplex: 'half' } : {}),
  };
  const res = await t.fetch(`${t.baseUrl}${PATH}?${query}`, init);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const answer: RawAnswer = { status: res.status, headers: res.headers, body: parsed, text, requestId: res.headers.get('x-request-id') ?? undefined };
  if (answer.status !== 202) throw restError(answer, PATH);
  const raw = parsed as Record<string, unknown>;
  return { ...raw, createdAt: new Date(raw.createdAt as string), finishedAt: raw.finishedAt === null ? null : new Date(raw.finishedAt as string) } as Import;
}

/** Reads the import (imports.getById) until it has ended, and answers it as it ended. */
export async function waitForImport(t: Transport, id: string, options: ImportWaitOptions = {}): Promise<Import> {
  for (;;) {
    const current = (await callProcedure(t, 'imports.getById', 'GET', { id }, { signal: options.signal })) as Import;
    if (current.status !== 'queued' && current.status !== 'running') return current;
    await sleep(options.intervalMs ?? 1000, options.signal);
  }
}

/** A web stream pulling from an async iterable (a Node stream): one chunk read per chunk sent, so back-pressure reaches the file. */
function streamOf(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}
