import type { Readable } from 'node:stream';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { withLiterals, type Db, type PoolClient } from '../knex';
import { leadsWithContacts } from './shape';
import { applyFilters, leadsWithJson, listOrderOf, type LeadListFilters } from './page-statement';

// The export: every lead the list's filters match, in the list's order, from one snapshot, as
// PostgreSQL's own COPY writes it (pg-copy-streams hands its bytes on as they come): no row
// becomes a JavaScript object, so the rate is COPY's and the memory is the streams' buffers.
// One statement in a REPEATABLE READ, READ ONLY transaction: its snapshot is taken when the COPY
// starts and holds to its last row, so writes made meanwhile are neither seen nor missed. On
// Citus the statement names the workspace in every table's WHERE or ON, as the list's pages do,
// so it runs in the workspace's shard group alone (one snapshot there too).

export type ExportFormat = 'csv' | 'ndjson';

/**
 * A CSV column: the Lead field it holds (its header), its SQL over the lead `l` and its contact
 * `c`, and whether a person typed its value. Only typed values can begin with a character a
 * spreadsheet reads as a formula (ids, statuses and timestamps are the service's own), so only
 * they are guarded (`guarded`). A new Lead field is one line here.
 */
interface CsvColumn {
  field: string;
  sql: string;
  typed: boolean;
}

const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const typed = (field: string, sql: string): CsvColumn => ({ field, sql, typed: true });
const made = (field: string, sql: string): CsvColumn => ({ field, sql, typed: false });

/** The Lead's fields in the order its JSON has them (render_lead_json); lists joined with `;`. */
const CSV_COLUMNS: readonly CsvColumn[] = [
  made('id', 'l.id'),
  typed('name', 'c.name'),
  typed('phones', "array_to_string(c.phones, ';')"),
  typed('emails', "array_to_string(c.emails, ';')"),
  typed('primaryPhone', 'c.phones[1]'),
  typed('primaryEmail', 'c.emails[1]'),
  typed('company', 'c.company'),
  made('contactId', 'l.contact_id'),
  typed('source', 'l.source'),
  made('status', 'l.status'),
  typed('notes', 'l.notes'),
  made('nextCallAt', iso('l.next_call_at')),
  made('createdAt', iso('l.created_at')),
  made('updatedAt', iso('l.updated_at')),
  made('assignedToId', 'l.assigned_to_id'),
  made('clientId', 'l.client_id'),
  typed('externalId', 'l.external_id'),
];

/**
 * OWASP's rule for CSV injection: a value beginning with `=`, `+`, `-`, `@`, a tab or a carriage
 * return gets a single quote before it (and every typed cell is quoted: FORCE_QUOTE below), so a
 * spreadsheet shows it as text. `ascii` reads the first character only (null stays null).
 */
const guarded = (sql: string) => `case when ascii(${sql}) in (61, 43, 45, 64, 9, 13) then '''' || ${sql} else ${sql} end`;

/**
 * The COPY options. CSV: a header row of the field names, nulls as empty cells, typed cells
 * quoted. NDJSON: each lead's stored JSON as it is, one a line: COPY's text format would double
 * its backslashes, so it is written as a one-column CSV whose quote and delimiter are control
 * characters, which JSON text never holds unescaped: no value is ever quoted or changed.
 */
const COPY_OPTIONS: Record<ExportFormat, string> = {
  csv: `format csv, header true, force_quote (${CSV_COLUMNS.filter((c) => c.typed).map((c) => `"${c.field}"`).join(', ')})`,
  ndjson: `format csv, delimiter E'\\x02', quote E'\\x01'`,
};

/** The export's SELECT, in the list's order, with its values written in (COPY takes no parameters). */
function exportStatement(db: Db, orgId: string, filters: LeadListFilters, format: ExportFormat): string {
  const query = format === 'ndjson'
    ? applyFilters(leadsWithJson(db, orgId), orgId, filters).select('d.json')
    : applyFilters(leadsWithContacts(db, orgId), orgId, filters)
      .select(CSV_COLUMNS.map((c) => db.raw(`${c.typed ? guarded(c.sql) : c.sql} as "${c.field}"`)));
  const { sql, bindings } = query.orderByRaw(listOrderOf('l')).toSQL().toNative();
  return withLiterals(sql, bindings);
}

/** The COPY statement of an export (also what bench/export.ts runs through psql). */
export function exportCopyStatement(db: Db, orgId: string, filters: LeadListFilters, format: ExportFormat): string {
  return `copy (${exportStatement(db, orgId, filters, format)}) to stdout with (${COPY_OPTIONS[format]})`;
}

/** An export under way: read `bytes` to its end, then `finish`; or `abort`. */
export interface LeadExport {
  /** What COPY writes, as it comes: a slow reader slows PostgreSQL (the socket is paused). */
  bytes: Readable;
  /** After the last byte: ends the transaction and closes its connection. */
  finish(): Promise<void>;
  /** The reader went away or the stream failed: cancels the statement and closes its connection. */
  abort(): Promise<void>;
}

/** One transaction, one snapshot, no time limit: an export lasts as long as its reader takes (`abort` ends it). */
const BEGIN = 'begin isolation level repeatable read, read only; set local statement_timeout = 0; select pg_backend_pid() as pid';

/**
 * Starts an export and answers once COPY has sent its first bytes or ended, so a failing
 * statement is still an error the caller can answer with. It runs on a connection of its own,
 * opened with the pool's settings but no read timeout: the pool's connections give up on an
 * answer after DB_STATEMENT_TIMEOUT_MS (pg's query_timeout, which would also end an export that
 * lasts longer), and an export held by a slow reader for minutes would take one of them from the
 * requests for that long. The caller bounds how many run at once.
 */
export async function openExport(db: Db, orgId: string, filters: LeadListFilters, format: ExportFormat): Promise<LeadExport> {
  const text = exportCopyStatement(db, orgId, filters, format);
  const { query_timeout: _poolReadTimeout, ...settings } = (db.client as unknown as { connectionSettings: pg.ClientConfig }).connectionSettings;
  const client = new pg.Client(settings);
  // Its failures reach the export's stream; without a listener, a socket error after the end would crash the process.
  client.on('error', () => undefined);
  await client.connect();
  let pid: number | undefined;
  let ended = false;
  const abort = async () => {
    if (ended) return;
    ended = true;
    // A statement still computing stops at the cancel; one blocked writing to us stops when the
    // socket closes (PostgreSQL defers a cancel while it writes). Either way PostgreSQL rolls
    // the transaction back and the backend ends.
    if (pid !== undefined) await db.raw('select pg_cancel_backend(?)', [pid]).catch(() => undefined);
    client.connection.stream.destroy();
  };
  try {
    const results = (await client.query(BEGIN)) as unknown as pg.QueryResult<{ pid: number }>[];
    pid = results[2]!.rows[0]!.pid;
    (db.client as unknown as PoolClient).emit('query', { method: 'raw', sql: text, bindings: [] });
    const bytes = client.query(copyTo(text));
    bytes.on('error', () => undefined);
    await started(bytes);
    return {
      bytes,
      finish: async () => {
        if (ended) return;
        try {
          await client.query('commit');
          ended = true;
          await client.end();
        } catch {
          await abort();
        }
      },
      abort,
    };
  } catch (err) {
    await abort();
    throw err;
  }
}

/** Resolves when `bytes` has something to read or has ended; rejects with its error. Reads nothing. */
function started(bytes: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (err?: Error) => {
      bytes.off('readable', onReady).off('error', settle);
      if (err) reject(err);
      else resolve();
    };
    const onReady = () => settle();
    bytes.once('readable', onReady).once('error', settle);
  });
}
