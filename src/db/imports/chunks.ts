import type { Knex } from 'knex';
import type { Db } from '../knex';
import { TABLES } from '../tables';

// An upload's rows, in chunks of about 1 MB, each starting on a row: the upload writes them as it
// reads the file (src/imports/receive-upload.ts), the job reads one at a time, and they go when
// the job ends (or is cancelled). A chunk's text is one JSON line per row (src/imports/stored-rows.ts).

export async function insertChunk(trx: Knex.Transaction, orgId: string, importId: string, seq: number, records: number, data: Buffer): Promise<void> {
  await trx(TABLES.importChunks).insert({ org_id: orgId, import_id: importId, seq, records, data });
}

/** The chunk `seq` of an import; undefined past the last. */
export async function readChunk(db: Db, orgId: string, importId: string, seq: number): Promise<{ records: number; data: Buffer } | undefined> {
  return db(TABLES.importChunks).where({ org_id: orgId, import_id: importId, seq }).first('records', 'data');
}

export async function deleteChunks(trx: Db, orgId: string, importId: string): Promise<void> {
  await trx(TABLES.importChunks).where({ org_id: orgId, import_id: importId }).delete();
}
