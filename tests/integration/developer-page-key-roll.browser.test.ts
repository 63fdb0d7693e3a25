import request from 'supertest';
import { describeInBrowser } from '../helpers/browser';
import { developerPageOf, serveToChromium } from '../helpers/developer-page-browser';
import { createTestContext } from '../helpers/test-app';
import { createKey, createMember, createOrg } from '../helpers/factories';
import { hashApiKeySecret } from '../../src/domain/api-key-secret';
import { TABLES } from '../../src/db/tables';

// The developer page's Roll button in Chromium (modelled on developer-page.browser.test.ts).
// Cache of verified keys off, so each request below reads the key as the roll left it.
const ctx = createTestContext({ keyCacheTtlMs: 0 });
const harness = serveToChromium(ctx);

/** A developer of a workspace with the feature and one leads.read key, signed in on a fresh page. */
async function signedInWithKey(permissions = ['DEVELOPER']) {
  const org = await createOrg(ctx.db, { tier: 'BUSINESS', features: ['DEVELOPER_API'] });
  const member = await createMember(ctx.db, org.id, permissions);
  const key = await createKey(ctx.db, org.id, { memberId: member.id, scopes: ['leads.read'] });
  const { page, consoleErrors } = await developerPageOf(harness, { memberId: member.id, orgId: org.id });
  await page.waitForSelector(`tr[data-key-id="${key.id}"]`);
  return { org, key, page, consoleErrors };
}

const listLeads = (bearer: string) => request(ctx.app).get('/api/v1/leads?pageSize=1').set('Authorization', `Bearer ${bearer}`);

describeInBrowser('the Roll button of the developer page, in a real browser', () => {
  it('rolls a key with the chosen overlap, shows the new secret once and the pending previous secret in the table; both secrets work', async () => {
    const { org, key, page, consoleErrors } = await signedInWithKey();
    const row = `tr[data-key-id="${key.id}"]`;
    expect(await page.locator(`${row} .previous-secret`).count()).toBe(0);
    await expect(page.isHidden(`${row} .roll-overlap`)).resolves.toBe(true);

    await page.click(`${row} .roll-button`);
    // The first click only offers the overlap (a day preselected); nothing is rolled yet.
    await expect(page.textContent(`${row} .roll-button`)).resolves.toBe('Confirm roll');
    await expect(page.inputValue(`${row} .roll-overlap`)).resolves.toBe('86400');
    expect((await ctx.db(TABLES.apiKeys).where({ org_id: org.id, id: key.id }).first()).secret_hash).toBe(hashApiKeySecret(key.key));
    await page.selectOption(`${row} .roll-overlap`, '3600');
    await page.click(`${row} .roll-button`);

    await page.waitForSelector('#new-secret:not([hidden])');
    const secret = (await page.textContent('#new-secret-value')) ?? '';
    expect(secret).toMatch(/^wsk_[0-9A-Za-z]{40}$/);
    await expect(page.textContent('#new-secret-note')).resolves.toMatch(/The previous secret keeps working until \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
    const stored = await ctx.db(TABLES.apiKeys).where({ org_id: org.id, id: key.id }).first();
    expect(stored.secret_hash).toBe(hashApiKeySecret(secret));
    expect(stored.previous_secret_expires_at.getTime() - Date.now()).toBeGreaterThan(3_500_000);
    expect(stored.previous_secret_expires_at.getTime() - Date.now()).toBeLessThanOrEqual(3_600_000);

    await page.waitForSelector(`${row} .previous-secret`);
    const note = await page.textContent(`${row} .previous-secret`);
    expect(note).toBe(`previous ${key.key.slice(0, 12)}… works until ${stored.previous_secret_expires_at.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    await expect(page.textContent(`${row} code`)).resolves.toBe(secret.slice(0, 12));
    expect(await page.textContent('#keys-table')).not.toContain(secret);
    expect([(await listLeads(key.key)).status, (await listLeads(secret)).status]).toEqual([200, 200]);
    expect(consoleErrors).toEqual([]);
  });

  it('with "stop the old secret now", refuses the old secret at once and shows no pending previous secret', async () => {
    const { org, key, page } = await signedInWithKey();
    const row = `tr[data-key-id="${key.id}"]`;

    await page.click(`${row} .roll-button`);
    await page.selectOption(`${row} .roll-overlap`, '0');
    await page.click(`${row} .roll-button`);

    await page.waitForSelector('#new-secret:not([hidden])');
    await expect(page.textContent('#new-secret-note')).resolves.toMatch(/The previous secret no longer works\./);
    const secret = (await page.textContent('#new-secret-value')) ?? '';
    expect((await ctx.db(TABLES.apiKeys).where({ org_id: org.id, id: key.id }).first()).secret_hash).toBe(hashApiKeySecret(secret));
    await page.waitForSelector(`${row} code:text-is("${secret.slice(0, 12)}")`);
    expect(await page.locator(`${row} .previous-secret`).count()).toBe(0);
    const old = await listLeads(key.key);
    expect([old.status, old.body.error.message]).toEqual([401, 'API key secret has been rolled']);
  });

  it('shows the error and rolls nothing when the key was revoked meanwhile; offers no Roll for revoked keys or to a member without DEVELOPER', async () => {
    const { org, key, page } = await signedInWithKey();
    const row = `tr[data-key-id="${key.id}"]`;
    await page.click(`${row} .roll-button`);
    await ctx.db(TABLES.apiKeys).where({ org_id: org.id, id: key.id }).update({ revoked_at: new Date() });
    const before = await ctx.db(TABLES.apiKeys).where({ org_id: org.id, id: key.id }).first();

    await page.click(`${row} .roll-button`);

    await page.waitForSelector('#keys-notice:not([hidden])');
    await expect(page.textContent('#keys-notice')).resolves.toContain('a revoked key cannot be rolled');
    await expect(page.isHidden('#new-secret')).resolves.toBe(true);
    expect(await ctx.db(TABLES.apiKeys).where({ org_id: org.id, id: key.id }).first()).toEqual(before);
    await page.reload();
    await page.waitForSelector(`${row} td.status.off`);
    expect(await page.locator(`${row} .roll-button`).count()).toBe(0);

    const viewer = await signedInWithKey([]);
    expect(await viewer.page.locator(`tr[data-key-id="${viewer.key.id}"] .roll-button`).count()).toBe(0);
  });
});
