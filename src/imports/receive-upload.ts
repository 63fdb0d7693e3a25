import type { Readable } from 'node:stream';
import type { Db } from '../db/knex';
import * as importsQueries from '../db/imports';
import { newId } from '../domain/ids';
import { CHUNK_BYTES, type ImportFormat } from './import-format';
import { readUpload } from './read-upload';
import { encodeRow } from './stored-rows';

export interface Upload {
  body: Readable;
  format: ImportFormat;
  mode: importsQueries.ImportMode;
  dryRun: boolean;
  actor: { kind: string; id: string };
  /** The file's size limit (MAX_IMPORT_BYTES unless a test sets a smaller one). */
  maxBytes?: number;
}

/** The columns every row of an import needs: a lead's name and phone, and in upsert mode the id it is matched by. */
export function requiredColumns(mode: importsQueries.ImportMode): string[] {
  return mode === 'upsert' ? ['name', 'phone', 'externalId'] : ['name', 'phone'];
}

/**
 * Reads an upload into a new queued import, as it streams: its rows are checked (read-upload.ts)
 * and written in chunks of about 1 MB, so no more than a chunk is ever held. All in one
 * transaction: the import appears, with every row, when the file has been read to its end, and a
 * file refused half-way (or a client gone) leaves nothing behind. Answers the import.
 */
export async function receiveUpload(db: Db, orgId: string, upload: Upload): Promise<importsQueries.ImportRow> {
  const id = newId('imp');
  return db.transaction(async (trx) => {
    await importsQueries.insertImport(trx, orgId, { id, mode: upload.mode, dryRun: upload.dryRun, format: upload.format, actor: upload.actor });
    let columns: string[] | null = null;
    let total = 0;
    let seq = 0;
    let pending: string[] = [];
    let size = 0;
    const flush = async () => {
      if (pending.length === 0) return;
      await importsQueries.insertChunk(trx, orgId, id, seq++, pending.length, Buffer.from(pending.join('\n'), 'utf8'));
      pending = [];
      size = 0;
    };
    const rows = readUpload(upload.body, upload.format, { required: requiredColumns(upload.mode) }, (header) => (columns = header), upload.maxBytes);
    for await (const row of rows) {
      const encoded = encodeRow(row);
      pending.push(encoded);
      size += encoded.length;
      total++;
      if (size >= CHUNK_BYTES) await flush();
    }
    await flush();
    return importsQueries.receive(trx, orgId, id, { total, columns });
  });
}
