import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Express } from 'express';
import type { Db } from '../../src/db/knex';
import { createLogger } from '../../src/logger';
import { createImportRunner, type ImportRunner, type ImportRunnerOptions } from '../../src/imports/import-runner';

export const CSV = 'text/csv';
export const NDJSON = 'application/x-ndjson';

/** POST /api/v1/imports with the file as the body. */
export function uploadImport(
  app: Express,
  key: string | null,
  body: string | Buffer,
  options: { type?: string; query?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  let req = request(app).post('/api/v1/imports').query(options.query ?? { resource: 'leads', mode: 'create' });
  if (options.type !== undefined) req = req.set('Content-Type', options.type);
  for (const [name, value] of Object.entries(options.headers ?? {})) req = req.set(name, value);
  if (key !== null) req = req.set('Authorization', `Bearer ${key}`);
  return req.send(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
}

/** What the workspace holds that an import could have left behind: its imports, chunks, error rows, contacts and leads. */
export async function importFootprint(db: Db, orgId: string) {
  const count = async (table: string) => Number(((await db(table).where({ org_id: orgId }).count({ n: '*' })) as { n: string }[])[0]!.n);
  return {
    imports: await count('imports'), chunks: await count('import_chunks'), errors: await count('import_errors'),
    contacts: await count('contacts'), leads: await count('leads'),
  };
}

/** A CSV file of `n` valid leads (distinct phones), with a header. */
export function validCsv(n: number, { from = 0 }: { from?: number } = {}): string {
  const lines = ['name,phone,email,company,source,status'];
  for (let i = from; i < from + n; i++) {
    lines.push(`Lead ${i},+4420794${String(60000 + i).padStart(5, '0')},lead${i}@example.com,Acme ${i},import,NOT_CONTACTED`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * An upload sent in pieces without a Content-Length (chunked), as a streaming client sends a
 * file: the answer is read even when the service stops reading the body before its end.
 */
export async function sendChunked(app: Express, key: string, pieces: string[], type = CSV): Promise<{ status: number; text: string }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/imports?resource=leads', headers: { 'Content-Type': type, Authorization: `Bearer ${key}` } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += String(chunk)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      // A write after the service answered and closed fails: what matters is the answer.
      req.on('error', () => undefined);
      for (const piece of pieces) req.write(piece);
      req.end();
    });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** An import runner for the given workspaces with test settings (fast polls, small batches unless given). */
export function startTestRunner(db: Db, orgIds: string[], overrides: Partial<ImportRunnerOptions> = {}): ImportRunner {
  const runner = createImportRunner({
    db, logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), concurrency: 2, maxRunningPerWorkspace: 2,
    leaseMs: 10_000, pollMs: 20, batchRows: 3, orgIds, ...overrides,
  });
  runner.start();
  return runner;
}

/** Waits until the import has ended (or the time is up); answers it as GET /api/v1/imports/{id} does. */
export async function waitForImport(app: Express, key: string, id: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(app).get(`/api/v1/imports/${id}`).set('Authorization', `Bearer ${key}`);
    if (!['queued', 'running'].includes(res.body.status) || Date.now() > deadline) return res.body;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
