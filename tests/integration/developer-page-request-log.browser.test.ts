import { describeInBrowser } from '../helpers/browser';
import { developerPageOf, serveToChromium } from '../helpers/developer-page-browser';
import { createTestContext, createTestDb } from '../helpers/test-app';
import { createKey, createMember, createOrg, unique } from '../helpers/factories';
import { rpcGet, rpcPost } from '../helpers/rpc';
import { createKeyRequestRecorder } from '../../src/api-key-requests/recorder';
import { createLogger } from '../../src/logger';

// The developer page's Requests view of a key, in Chromium: the log as apiKeys.getRequests pages
// it, the failures-only and procedure filters, and "Older" walking on with the cursor.

const db = createTestDb();
const recorder = createKeyRequestRecorder({ db, logger: createLogger('silent'), intervalMs: 3_600_000 });
const ctx = createTestContext({ db, keyRequests: recorder });
const harness = serveToChromium(ctx);

describeInBrowser('GET /developer: a key\'s Requests view in a real browser', () => {
  it('shows the key\'s requests newest first, filters to failures and to a procedure, and pages with Older', async () => {
    const org = await createOrg(ctx.db, { tier: 'BUSINESS', features: ['DEVELOPER_API'] });
    const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
    const { id: keyId, key } = await createKey(ctx.db, org.id, { memberId: member.id, scopes: ['leads.read', 'leads.create'] });
    const leadName = unique('Private Person');
    await rpcPost(ctx.app, 'leads.create', { name: leadName, phone: '+442079460005' }, key).expect(200);
    for (let i = 0; i < 55; i++) await rpcGet(ctx.app, 'leads.getAll', { pageSize: 1 }, key).expect(200);
    await rpcGet(ctx.app, 'leads.getById', { id: 'lead_missing' }, key).expect(404);
    await rpcPost(ctx.app, 'leads.delete', { id: 'lead_missing' }, key).expect(403);
    await recorder.flush();

    const { page, consoleErrors } = await developerPageOf(harness, { memberId: member.id, orgId: org.id });
    await page.waitForSelector(`#keys-table tr[data-key-id="${keyId}"]`);
    await page.click(`#keys-table tr[data-key-id="${keyId}"] button[data-action="requests"]`);

    const rows = page.locator('#request-log-table tbody tr');
    const cells = async (column: number) => page.locator(`#request-log-table tbody tr td:nth-child(${column})`).allTextContents();
    // The page's CSP refuses eval, so waitForFunction with a string cannot run there: polled from here.
    const rowCountBecomes = async (count: number) => {
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
        if ((await rows.count()) === count) return;
      }
      expect(await rows.count()).toBe(count);
    };
    await page.waitForSelector('#request-log:not([hidden])');
    await rows.first().waitFor();
    // The first page: 50 newest, the 403 on top.
    expect(await rows.count()).toBe(50);
    expect((await cells(3)).slice(0, 3)).toEqual(['leads.delete', 'leads.getById', 'leads.getAll']);
    expect((await cells(4)).slice(0, 2)).toEqual(['403', '404']);
    expect((await cells(5)).slice(0, 2)).toEqual(['FORBIDDEN', 'NOT_FOUND']);
    expect(await page.isVisible('#request-log-more')).toBe(true);
    await page.click('#request-log-more');
    await rowCountBecomes(58);
    expect((await cells(3)).at(-1)).toBe('leads.create');
    expect(await page.isVisible('#request-log-more')).toBe(false);
    expect(await page.textContent('#request-log-table')).not.toContain(leadName);

    await page.check('#request-log-failed');
    await rowCountBecomes(2);
    expect(await cells(4)).toEqual(['403', '404']);

    await page.uncheck('#request-log-failed');
    await page.fill('#request-log-procedure', 'leads.create');
    await page.press('#request-log-procedure', 'Enter');
    await rowCountBecomes(1);
    expect(await cells(3)).toEqual(['leads.create']);
    expect(await cells(4)).toEqual(['200']);

    await page.fill('#request-log-procedure', 'apiKeys.roll');
    await page.press('#request-log-procedure', 'Enter');
    await page.waitForSelector('#request-log-empty:not([hidden])');
    expect(await rows.count()).toBe(0);
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 60_000);
});
