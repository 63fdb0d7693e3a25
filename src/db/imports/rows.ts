// An import's row and the API's shape of it.

export type ImportStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
export type ImportMode = 'create' | 'upsert';

/** An import as the API answers it. */
export interface Import {
  id: string;
  status: ImportStatus;
  resource: 'leads';
  mode: ImportMode;
  dryRun: boolean;
  rows: { total: number; processed: number; created: number; updated: number; failed: number };
  /** Why a failed import failed (never a row's data); null otherwise. */
  failure: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface ImportRow {
  org_id: string;
  id: string;
  resource: 'leads';
  mode: ImportMode;
  dry_run: boolean;
  format: 'csv' | 'ndjson';
  status: ImportStatus;
  actor_kind: string;
  actor_id: string;
  columns: string[] | null;
  rows_total: number;
  rows_processed: number;
  rows_created: number;
  rows_updated: number;
  rows_failed: number;
  errors_recorded: number;
  cursor_chunk: number;
  cursor_record: number;
  lease_token: string | null;
  attempts: number;
  failure: string | null;
  created_at: Date;
  finished_at: Date | null;
}

export const IMPORT_COLUMNS = [
  'org_id', 'id', 'resource', 'mode', 'dry_run', 'format', 'status', 'actor_kind', 'actor_id', 'columns', 'rows_total', 'rows_processed',
  'rows_created', 'rows_updated', 'rows_failed', 'errors_recorded', 'cursor_chunk', 'cursor_record', 'lease_token', 'attempts', 'failure',
  'created_at', 'finished_at',
];

export function toImport(row: ImportRow): Import {
  return {
    id: row.id,
    status: row.status,
    resource: row.resource,
    mode: row.mode,
    dryRun: row.dry_run,
    rows: { total: row.rows_total, processed: row.rows_processed, created: row.rows_created, updated: row.rows_updated, failed: row.rows_failed },
    failure: row.failure,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

