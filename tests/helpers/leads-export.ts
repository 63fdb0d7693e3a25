import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import type { JsonLead } from './leads-rest';
import type { Db } from '../../src/db/knex';
import * as leads from '../../src/db/leads';
import type { NewLead } from '../../src/db/leads';

/** The export's body as text, whatever its media type (superagent parses neither CSV nor NDJSON). */
function asText(res: NodeJS.ReadableStream & { setEncoding(encoding: string): void }, done: (err: Error | null, body: string) => void): void {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (text += chunk));
  res.on('end', () => done(null, text));
}

/**
 * GET /api/v1/leads/export; `query` as an object or a raw query string. The body is `res.text`
 * for an export (gunzipped by superagent when sent gzipped) and `res.body` for an error.
 */
export function exportLeads(app: Express, key: string | null, query: Record<string, string> | string = {}, headers: Record<string, string> = {}) {
  const req = request(app).get('/api/v1/leads/export').query(query).buffer(true);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  if (key !== null) req.set('Authorization', `Bearer ${key}`);
  return req.parse((res, done) => {
    const type = String(res.headers['content-type']);
    if (type.startsWith('application/json')) {
      asText(res as never, (err, text) => done(err, JSON.parse(text)));
      return;
    }
    asText(res as never, (err, text) => done(err, text));
  });
}

export function exportText(res: request.Response): string {
  return res.body as string;
}

/** NDJSON's leads, one a line (the last line ends with a newline too). */
export function ndjsonLeads(text: string): JsonLead[] {
  if (text === '') return [];
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as JsonLead);
}

/** RFC 4180 CSV read back: each row's cells, and whether each cell was quoted. */
export function parseCsv(text: string): { cells: string[]; quoted: boolean[] }[] {
  const rows: { cells: string[]; quoted: boolean[] }[] = [];
  let row = { cells: [] as string[], quoted: [] as boolean[] };
  let i = 0;
  while (i < text.length) {
    let cell = '';
    let quoted = false;
    if (text[i] === '"') {
      quoted = true;
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unbalanced quote in the CSV');
        if (text[i] === '"' && text[i + 1] === '"') { cell += '"'; i += 2; continue; }
        if (text[i] === '"') { i++; break; }
        cell += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n') cell += text[i++];
    }
    row.cells.push(cell);
    row.quoted.push(quoted);
    if (text[i] === ',') { i++; continue; }
    if (text[i] === '\n' || i >= text.length) {
      rows.push(row);
      row = { cells: [], quoted: [] };
      i++;
      continue;
    }
    throw new Error(`unexpected ${JSON.stringify(text[i])} after a quoted cell`);
  }
  return rows;
}

/** A CSV's data rows as objects keyed by its header row. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map(({ cells }) => Object.fromEntries(header.cells.map((name, i) => [name, cells[i]!])));
}

/**
 * `count` leads with 10 KB of random notes each (gzip cannot shrink an export of them below every
 * buffer on the way), through the leads' data module (stored JSON, counters).
 */
export async function seedLongLeads(db: Db, orgId: string, tag: string, count: number): Promise<void> {
  await db.raw(
    `insert into contacts (org_id, id, name, phones) select ?, 'con_' || ? || g, 'Person ' || g, array['+4420' || lpad(g::text, 8, '0')]
     from generate_series(1, ?) g`,
    [orgId, tag, count],
  );
  const batch: NewLead[] = Array.from({ length: count }, (_, i) => ({
    id: `lead_${tag}${i + 1}`, contactId: `con_${tag}${i + 1}`, status: 'NOT_CONTACTED', source: null, notes: randomBytes(7500).toString('base64'),
    nextCallAt: null, assignedToId: null, clientId: null, createdAt: new Date(Date.now() - i * 1000),
  }));
  await db.transaction((trx) => leads.insertLeads(trx, orgId, batch));
}

/** The workspace's export statement as pg_stat_activity shows it (COPY's text names the workspace). */
export async function exportBackend(db: Db, orgId: string): Promise<{ pid: number; state: string; wait_event: string | null } | undefined> {
  const { rows } = await db.raw(
    `select pid, state, wait_event from pg_stat_activity where query like 'copy (select%' and query like ?`,
    [`%${orgId}%`],
  );
  return rows[0];
}
