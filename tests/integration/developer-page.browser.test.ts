import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { describeInBrowser, launchChromium } from '../helpers/browser';
import { createTestContext } from '../helpers/test-app';
import { createKey, createLead, createMember, createOrg } from '../helpers/factories';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';

const ARTIFACTS = join(__dirname, '..', 'artifacts');

const ctx = createTestContext();
let server: Server;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  server = ctx.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await ctx.close();
});

describeInBrowser('GET /developer in a real browser', () => {
  it('signs in, lists and creates keys, issues a test token and runs leads.getAll with Dates decoded', async () => {
    const org = await createOrg(ctx.db, { tier: 'BUSINESS', features: ['DEVELOPER_API'] });
    const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
    const existing = await createKey(ctx.db, org.id, { memberId: member.id, scopes: ['leads.read'] });
    const nextCallAt = new Date('2026-11-23T10:00:00.000Z');
    await createLead(ctx.db, org.id, { name: 'Ada Lovelace', nextCallAt });
    await createLead(ctx.db, org.id, { name: 'Grace Hopper' });
    // createApp signs sessions with the development default when SESSION_SECRET is absent, as here.
    const session = signMemberSession(testJwtKeys.session, { memberId: member.id, orgId: org.id }).token;
    // (Expressions run in the page are strings: the tests are type-checked without the DOM lib.)
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const consoleErrors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });

    await page.goto(`${baseUrl}/developer`);
    await page.fill('#session-input', session);
    await page.click('#sign-in-button');

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
    await page.check('#key-scopes input[value="leads.read"]');
    await page.check('#key-scopes input[value="contacts.read"]');
    await page.click('#create-key-button');
    await page.waitForSelector('#new-secret:not([hidden])');
    const secret = (await page.textContent('#new-secret-value')) ?? '';
    expect(secret).toMatch(/^wsk_/);
    await page.waitForSelector('td.key-name:text-is("Browser key")');
    expect(await page.textContent('#keys-table')).not.toContain(secret);

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
});
