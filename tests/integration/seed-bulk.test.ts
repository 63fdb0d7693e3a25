import { isValidPhoneNumber } from 'libphonenumber-js';
import { createTestContext } from '../helpers/test-app';
import { createOrg, createKey, createWorkspace } from '../helpers/factories';
import { cli, cliJson } from '../helpers/cli-harness';
import { bodyOf, listLeads } from '../helpers/leads-rest';
import { LEAD_STATUSES } from '../../src/domain/lead-status';
import { seedBulk } from '../../src/cli/seed-bulk';

const ctx = createTestContext();
afterAll(() => ctx.close());

// This file shares the run's database with the others, so each load keeps every index
// (--keep-indexes): the default drops them when it finds no other workspace's rows, which a
// test running first in a new database could, under another file's plan checks.
describe('cli seed bulk', () => {
  it('loads exactly 2000 leads with valid phones, statuses and app-shaped ids, and the REST total says 2000', async () => {
    const org = await createOrg(ctx.db);

    const output = await cliJson('seed', 'bulk', '--org', org.id, '--leads', '2000', '--keep-indexes');

    expect(output).toMatchObject({
      orgId: org.id, leads: 2000, members: 5, indexesDropped: 0, indexesRebuilt: 0,
      loadSeconds: expect.any(Number), indexesSeconds: expect.any(Number), vacuumSeconds: expect.any(Number), seconds: expect.any(Number),
    });
    // The phases are parts of the whole (which adds folding the counters); each rounded to a tenth.
    expect(output.loadSeconds + output.indexesSeconds + output.vacuumSeconds).toBeLessThanOrEqual(output.seconds + 0.15);
    const leads = await ctx.db('leads as l')
      .join('contacts as c', function joinContact() {
        this.on('c.org_id', 'l.org_id').andOn('c.id', 'l.contact_id');
      })
      .where('l.org_id', org.id)
      .select('l.id', 'l.contact_id', 'l.status', 'l.assigned_to_id', 'l.client_id', 'c.phones', 'c.emails');
    expect(leads).toHaveLength(2000);
    for (const lead of leads) {
      expect(lead.id).toMatch(/^lead_[0-9A-Za-z]{22}$/);
      expect(lead.contact_id).toMatch(/^con_[0-9A-Za-z]{22}$/);
      expect(LEAD_STATUSES).toContain(lead.status);
      expect(lead.phones.length).toBeGreaterThan(0);
      for (const phone of lead.phones) {
        expect(phone).toMatch(/^\+[1-9]\d{7,14}$/);
        expect(isValidPhoneNumber(phone)).toBe(true);
      }
      expect(lead.client_id === null).toBe(lead.status !== 'CONVERTED');
    }
    const members = await ctx.db('org_members').where('org_id', org.id).pluck('id');
    expect(members).toHaveLength(5);
    expect(leads.every((l) => l.assigned_to_id === null || members.includes(l.assigned_to_id))).toBe(true);
    const { key } = await createKey(ctx.db, org.id, { scopes: ['leads.read'] });
    const res = await listLeads(ctx.app, key, { pageSize: 100 });
    expect(res.status).toBe(200);
    expect(bodyOf(res).pagination.total).toBe(2000);
  });

  it('skews the data as a real workspace is: mostly untouched or unanswered, some unassigned, few converted', async () => {
    const org = await createOrg(ctx.db);

    await cliJson('seed', 'bulk', '--org', org.id, '--leads', '2000', '--keep-indexes');

    const share = async (where: (q: any) => unknown) =>
      Number((await ctx.db('leads').where('org_id', org.id).where(where).count({ n: '*' }))[0]!.n) / 2000;
    expect(await share((q) => q.whereIn('status', ['NOT_CONTACTED', 'NO_ANSWER']))).toBeGreaterThan(0.5);
    expect(await share((q) => q.where('status', 'CONVERTED'))).toBeLessThan(0.05);
    expect(await share((q) => q.whereNull('assigned_to_id'))).toBeGreaterThan(0.1);
    expect(await share((q) => q.whereNull('next_call_at'))).toBeGreaterThan(0.2);
  });

  it('uses the workspace members it has instead of adding five', async () => {
    const ws = await createWorkspace(ctx.db);

    const output = await cliJson('seed', 'bulk', '--org', ws.org.id, '--leads', '50', '--keep-indexes');

    expect(output.members).toBe(1);
    expect(await ctx.db('org_members').where('org_id', ws.org.id).pluck('id')).toEqual([ws.member.id]);
  });

  it('exits 1 naming the workspace when it does not exist, and exits 2 without --leads or with both index flags', async () => {
    const missing = await cli('seed', 'bulk', '--org', 'org_0000000000000000000000', '--leads', '10', '--keep-indexes');
    const noCount = await cli('seed', 'bulk', '--org', 'org_0000000000000000000000');
    const bothFlags = await cli('seed', 'bulk', '--org', 'org_0000000000000000000000', '--leads', '10', '--keep-indexes', '--rebuild-indexes');

    expect(missing).toMatchObject({ code: 1, err: 'no workspace org_0000000000000000000000\n' });
    expect(noCount.code).toBe(2);
    expect(noCount.err).toMatch(/^missing --leads/);
    expect(bothFlags.code).toBe(2);
    expect(bothFlags.err).toMatch(/^give --rebuild-indexes or --keep-indexes, not both/);
  });
});
