import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Page } from 'playwright-core';
import { describeInBrowser } from '../helpers/browser';
import { developerPageOf, serveToChromium } from '../helpers/developer-page-browser';
import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createOrg } from '../helpers/factories';
import { TABLES } from '../../src/db/tables';
import { createProcedureRegistry } from '../../src/procedures';
import { buildProcedureCatalogue } from '../../src/http/developer-page/procedure-catalogue';

const ARTIFACTS = join(__dirname, '..', 'artifacts');

const ctx = createTestContext();
const harness = serveToChromium(ctx);
/** The sockets of the events.onEvent streams the server answered, newest last. */
const streamSockets: Socket[] = [];

beforeAll(() => {
  harness.server.on('request', (req: IncomingMessage) => {
    if (req.url?.startsWith('/api/v1/rpc/events.onEvent')) streamSockets.push(req.socket);
  });
});

/** A developer of a workspace with the feature, signed in on a fresh page; the page's console errors are collected. */
async function signedInPage() {
  const org = await createOrg(ctx.db, { tier: 'BUSINESS', features: ['DEVELOPER_API'] });
  const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
  const { page, consoleErrors, session } = await developerPageOf(harness, { memberId: member.id, orgId: org.id });
  await page.waitForSelector('#keys-section:not([hidden])');
  await page.waitForSelector('#token-scopes tr[data-resource="leads"]', { state: 'attached' });
  return { org, member, session, page, consoleErrors };
}

const chips = (page: Page, selector: string) => page.locator(`${selector} .chip`).allTextContents();

describeInBrowser('GET /developer in a real browser', () => {
  it('signs in, lists and creates keys, issues a test token and runs leads.getAll with Dates decoded', async () => {
    const org = await createOrg(ctx.db, { tier: 'BUSINESS', features: ['DEVELOPER_API'] });
    const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
    const existing = await createKey(ctx.db, org.id, { memberId: member.id, scopes: ['leads.read'] });
    const nextCallAt = new Date('2026-11-23T10:00:00.000Z');
    await createLead(ctx.db, org.id, { name: 'Ada Lovelace', nextCallAt });
    await createLead(ctx.db, org.id, { name: 'Grace Hopper' });
    const { page, consoleErrors, session } = await developerPageOf(harness, { memberId: member.id, orgId: org.id });

    await page.waitForSelector('#keys-section:not([hidden])');
    await expect(page.textContent('#whoami-text')).resolves.toContain(org.name);
    await page.waitForSelector(`tr[data-key-id="${existing.id}"]`);
    const existingRow = await page.textContent(`tr[data-key-id="${existing.id}"]`);
    expect(existingRow).toContain('leads.read');
    expect(existingRow).toContain('active');
    expect(await page.evaluate("sessionStorage.getItem('workspace-api.member-session')")).toBe(session);
    expect(await page.evaluate('document.cookie')).toBe('');

    await page.click('#create-key summary');
    await page.fill('#key-name', 'Browser key');
    // Every resource starts at None; the row lists what its choice grants.
    expect(await page.locator('#key-scopes input[value="none"]:checked').count()).toBe(await page.locator('#key-scopes tbody tr').count());
    await page.check('#key-scopes input[name="key-scope-leads"][value="write"]');
    // Write for contacts grants no contacts.erase: that is a box of its own, unchecked.
    await page.check('#key-scopes input[name="key-scope-contacts"][value="write"]');
    await expect(chips(page, '#key-scopes tr[data-resource="contacts"]')).resolves.toEqual(['contacts.read', 'contacts.create', 'contacts.update', 'contacts.delete']);
    await expect(page.isChecked('#key-scopes tr[data-resource="contacts"] input[type=checkbox][value="contacts.erase"]')).resolves.toBe(false);
    await page.check('#key-scopes input[name="key-scope-contacts"][value="read"]');
    await expect(chips(page, '#key-scopes tr[data-resource="leads"]')).resolves.toEqual(['leads.read', 'leads.create', 'leads.update', 'leads.delete']);
    await expect(page.isDisabled('#key-scopes input[name="key-scope-events"][value="write"]')).resolves.toBe(true);
    await page.click('#create-key-button');
    await page.waitForSelector('#new-secret:not([hidden])');
    const secret = (await page.textContent('#new-secret-value')) ?? '';
    expect(secret).toMatch(/^wsk_/);
    await page.waitForSelector('td.key-name:text-is("Browser key")');
    expect(await page.textContent('#keys-table')).not.toContain(secret);
    const created = await ctx.db(TABLES.apiKeys).where({ org_id: org.id, name: 'Browser key' }).first();
    const createdChips = await chips(page, `tr[data-key-id="${created.id}"]`);
    expect([...createdChips].sort()).toEqual(['contacts.read', 'leads.create', 'leads.delete', 'leads.read', 'leads.update']);
    expect([...created.scopes].sort()).toEqual([...createdChips].sort());
    // The form starts again from None everywhere.
    expect(await page.locator('#key-scopes input[value="none"]:checked').count()).toBe(await page.locator('#key-scopes tbody tr').count());

    await page.click('#get-token');
    await page.waitForSelector('#token-status:has-text("Test token ready")');
    await expect(page.inputValue('#procedure-select')).resolves.toBe('leads.getAll');
    await expect(page.textContent('#proc-scope')).resolves.toBe('leads.read');
    await page.fill('#input-editor', '{"pageSize": 10}');
    await page.click('#send');

    await page.waitForSelector('#result:not([hidden])');
    await expect(page.textContent('#result-status')).resolves.toMatch(/^200/);
    const decoded = (await page.textContent('#result-decoded')) ?? '';
    expect(decoded).toContain('Ada Lovelace');
    expect(decoded).toContain('Date(2026-11-23T10:00:00.000Z)');
    expect(await page.locator('#result-decoded .date').count()).toBeGreaterThan(0);
    await expect(page.textContent('#result-headers')).resolves.toContain('content-type: application/json');
    await expect(page.textContent('#result-curl')).resolves.toContain('/api/v1/rpc/leads.getAll');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'developer-page.png'), fullPage: true });
    expect(consoleErrors).toEqual([]);
    await page.close();
  }, 60_000);

  it('runs leads.create from its example input with Write on leads, clears the answer on a switch, and names the box for a missing scope', async () => {
    const { org, page, consoleErrors } = await signedInPage();

    // The test token starts at Read everywhere; Write is chosen for leads only.
    await page.click('#token-scopes-details summary');
    expect(await page.locator('#token-scopes input[value="read"]:checked').count()).toBe(await page.locator('#token-scopes tbody tr').count());
    await page.check('#token-scopes input[name="token-scope-leads"][value="write"]');
    await page.click('#get-token');
    await page.waitForSelector('#token-status:has-text("Test token ready")');
    expect(await page.textContent('#token-status')).toContain('leads.create');
    expect(await page.textContent('#token-status')).not.toContain('contacts.create');

    await page.selectOption('#procedure-select', 'leads.create');
    const expected = buildProcedureCatalogue(createProcedureRegistry()).flatMap((r) => r.procedures).find((p) => p.name === 'leads.create')!.sampleInput as Record<string, unknown>;
    const sample = JSON.parse(await page.inputValue('#input-editor')) as Record<string, unknown>;
    expect(sample).toEqual(expected);
    expect(sample.name).toEqual(expect.stringMatching(/\S/));
    expect(sample.phone).toEqual(expect.stringMatching(/\S/));
    await page.click('#send');

    await page.waitForSelector('#result:not([hidden])');
    await expect(page.textContent('#result-status')).resolves.toMatch(/^200/);
    expect(await page.textContent('#result-decoded')).toContain(sample.name as string);
    const stored = await ctx.db(TABLES.leads).where({ org_id: org.id });
    expect(stored).toHaveLength(1);
    await expect(page.isHidden('#result-hint')).resolves.toBe(true);
    // The curl block wraps inside its box rather than scrolling off the page.
    await expect(page.evaluate("getComputedStyle(document.getElementById('result-curl')).whiteSpace")).resolves.toBe('pre-wrap');
    await expect(page.evaluate("(function (c) { return c.scrollWidth <= c.clientWidth; })(document.getElementById('result-curl'))")).resolves.toBe(true);

    await page.selectOption('#procedure-select', 'leads.getById');
    await expect(page.isHidden('#result')).resolves.toBe(true);
    await expect(page.textContent('#result-decoded')).resolves.toBe('');
    await expect(page.textContent('#result-status')).resolves.toBe('');

    await page.selectOption('#procedure-select', 'contacts.create');
    await page.click('#send');
    await page.waitForSelector('#result:not([hidden])');
    await expect(page.textContent('#result-status')).resolves.toMatch(/^403/);
    await expect(page.textContent('#result-hint')).resolves.toBe(
      'This test token lacks contacts.create: choose Write for contacts under Test token scopes, then get a new test token (a key needs the same choice when you create it).',
    );
    await expect(page.textContent('#token-scopes-details summary')).resolves.toBe('Test token scopes');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'developer-page-playground.png'), fullPage: true });
    // Chromium logs the refused call itself; that one was asked for.
    expect(consoleErrors.filter((e) => !e.includes('status of 403'))).toEqual([]);
    await page.close();
  }, 60_000);

  it("shows the workspace's events its playground calls cause in the live feed, newest first, and resumes after a dropped stream with none missed", async () => {
    const { org, page, consoleErrors } = await signedInPage();
    const urls: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    const feedRows = (): Promise<string[][]> =>
      page.evaluate("Array.from(document.querySelectorAll('#feed-list li')).map(function (li) { return [li.dataset.eventId, li.dataset.type, li.textContent]; })");
    // Polled from here: waitForFunction evaluates its text with eval, which the page's CSP refuses.
    // Events show once every older transaction has ended: another test's open one holds them back meanwhile.
    const untilRows = async (n: number, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while ((await feedRows()).length < n) {
        if (Date.now() > deadline) throw new Error(`the feed did not show ${n} events within ${timeoutMs} ms: ${JSON.stringify(await feedRows())}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const storedEvents = () => ctx.db(TABLES.events).where({ org_id: org.id }).orderBy([{ column: 'txid' }, { column: 'seq' }]).select('id', 'type', 'data');

    await page.click('#token-scopes-details summary');
    await page.check('#token-scopes input[name="token-scope-leads"][value="write"]');
    await page.click('#get-token');
    await page.waitForSelector('#feed-status:has-text("Live since")');
    await expect(page.isVisible('#feed-empty')).resolves.toBe(true);

    await page.selectOption('#procedure-select', 'leads.create');
    await page.click('#send');
    await page.waitForSelector('#result:not([hidden])');
    const first = await storedEvents();
    expect(first.map((e) => e.type)).toContain('lead.created');
    await untilRows(first.length);
    const lead = first.find((e) => e.type === 'lead.created')!;
    expect((await feedRows()).map(([id, type]) => [id, type])).toEqual([...first].reverse().map((e) => [e.id, e.type]));
    expect((await feedRows()).find(([id]) => id === lead.id)![2]).toContain(lead.data.object.id);
    await expect(page.isHidden('#feed-empty')).resolves.toBe(true);

    // The stream's connection is cut; the browser reconnects by itself (Last-Event-ID) and the call made meanwhile shows once.
    streamSockets[streamSockets.length - 1]!.destroy();
    await page.fill('#input-editor', JSON.stringify({ name: 'Feed Second', phone: '+442079460777' }));
    await page.click('#send');
    await page.waitForSelector('#result-decoded:has-text("Feed Second")');
    const all = await storedEvents();
    expect(all.length).toBeGreaterThan(first.length);
    await untilRows(all.length);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await feedRows()).map(([id, type]) => [id, type])).toEqual([...all].reverse().map((e) => [e.id, e.type]));
    await page.waitForSelector('#feed-status:has-text("Live since")');

    // A stream token in the URL, never the test token or a key.
    const streams = urls.filter((url) => url.includes('/api/v1/rpc/events.onEvent'));
    expect(streams.length).toBeGreaterThanOrEqual(1);
    const playgroundToken = (await page.evaluate("document.getElementById('result-curl').textContent")) as string;
    for (const url of streams) {
      const token = new URL(url).searchParams.get('token') ?? '';
      expect(token).not.toBe('');
      expect(playgroundToken).not.toContain(token);
      expect(url).not.toContain('wsk_');
    }

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'developer-page-live-feed.png'), fullPage: true });
    // Chromium logs the stream cut above itself; that one was asked for.
    expect(consoleErrors.filter((e) => !e.includes('ERR_INCOMPLETE_CHUNKED_ENCODING'))).toEqual([]);
    await page.close();
  }, 90_000);
});
