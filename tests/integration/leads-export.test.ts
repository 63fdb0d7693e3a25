import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createLead } from '../helpers/factories';
import { csvRecords, exportLeads, exportText, ndjsonLeads } from '../helpers/leads-export';

const ctx = createTestContext();
afterAll(() => ctx.close());

describe('smoke', () => {
  it('exports', async () => {
    const ws = await createWorkspace(ctx.db);
    await createLead(ctx.db, ws.org.id, { notes: 'a\\b "q"\nline é 😀', emails: ['a@b.c', 'd@e.f'] });
    await createLead(ctx.db, ws.org.id, { name: '=SUM(A1)' });
    const nd = await exportLeads(ctx.app, ws.key, { format: 'ndjson' });
    console.log(nd.status, nd.headers, exportText(nd), ndjsonLeads(exportText(nd)));
    const csv = await exportLeads(ctx.app, ws.key, {});
    console.log(csv.status, csv.headers, exportText(csv), csvRecords(exportText(csv)));
    const bad = await exportLeads(ctx.app, ws.key, { format: 'xml' });
    console.log(bad.status, bad.body);
  });
});
