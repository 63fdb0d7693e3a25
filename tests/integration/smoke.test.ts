import { createTestContext } from '../helpers/test-app';
import { createWorkspace, createLead } from '../helpers/factories';
import { rpcGet, resultOf } from '../helpers/rpc';

const ctx = createTestContext();
afterAll(() => ctx.close());

describe('GET leads.getById', () => {
  it('answers the lead with Dates revived', async () => {
    const ws = await createWorkspace(ctx.db);
    const lead = await createLead(ctx.db, ws.org.id, { nextCallAt: new Date('2030-01-02T03:04:05.678Z') });
    const res = await rpcGet(ctx.app, 'leads.getById', { id: lead.id }, ws.key);
    expect(res.status).toBe(200);
    expect(resultOf(res).nextCallAt).toEqual(new Date('2030-01-02T03:04:05.678Z'));
  });
});
