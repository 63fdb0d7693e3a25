import type { Lead, LeadsWalkFilters } from './leads-rest.js';
import { reviveLead, restError } from './leads-rest.js';
import type { ByteStream } from './server-sent-events.js';
import type { RequestOptions, Transport } from './transport.js';

/** `GET /api/v1/leads/export`'s filters: the REST list's, without page numbers. */
export type LeadsExportFilters = Omit<LeadsWalkFilters, 'pageSize'>;

/** `api.leads.export(options)`: the filters, and the call's signal and timeout (no retries: see exportLeads). */
export interface LeadsExportOptions extends Pick<RequestOptions, 'signal' | 'timeoutMs'> {
  filters?: LeadsExportFilters;
}

const PATH = '/api/v1/leads/export';

/**
 * Every lead the filters match, from one snapshot on the server (`GET /api/v1/leads/export` as
 * NDJSON), yielded one by one as its lines arrive: the export is never held whole, and a consumer
 * that reads slowly slows the server's query. Breaking out of the loop (or `signal`) ends the
 * request, and the server's export with it. A cut-short export (the connection lost mid-way)
 * throws rather than ending quietly. Not retried once it has started: a retry would be another
 * snapshot; `timeoutMs` bounds the wait for the first bytes only.
 */
export async function* exportLeads(t: Transport, filters: LeadsExportFilters = {}, options: Pick<RequestOptions, 'signal' | 'timeoutMs'> = {}): AsyncGenerator<Lead, void, undefined> {
  const query = new URLSearchParams({ format: 'ndjson' });
  for (const [name, value] of Object.entries(filters)) {
    if (value !== undefined && value !== null) query.set(name, String(value));
  }
  const abort = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, abort.signal]) : abort.signal;
  const timeoutMs = options.timeoutMs ?? t.timeoutMs;
  const connecting = setTimeout(() => abort.abort(new DOMException(`No answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  const res = await t.fetch(`${t.baseUrl}${PATH}?${query}`, {
    method: 'GET', headers: { Authorization: `Bearer ${t.apiKey}`, Accept: 'application/x-ndjson' }, signal, credentials: 'omit',
  }).finally(() => clearTimeout(connecting));
  if (res.status !== 200) {
    const text = await res.text();
    let body: unknown;
    try { body = JSON.parse(text); } catch { body = undefined; }
    throw restError({ status: res.status, headers: res.headers, body, text, requestId: res.headers.get('x-request-id') ?? undefined }, PATH);
  }
  if (!res.body) throw new TypeError('The fetch in use gives no body stream: export needs one (the global fetch of Node 20+ and browsers does)');
  try {
    for await (const line of ndjsonLines(res.body)) yield reviveLead(JSON.parse(line) as Record<string, unknown>);
  } finally {
    abort.abort();
  }
}

/** The lines of an NDJSON body as they arrive (UTF-8, a multi-byte character split across chunks kept whole). */
async function* ndjsonLines(body: ByteStream): AsyncGenerator<string, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        if (line !== '') yield line;
      }
    }
    buffer += decoder.decode();
    if (buffer !== '') throw new SyntaxError('The export ended in the middle of a line: it was cut short');
  } finally {
    // Not awaited: the caller's abort (exportLeads) ends the request at once, whatever the fetch's cancel waits for.
    reader.cancel().catch(() => undefined);
  }
}

