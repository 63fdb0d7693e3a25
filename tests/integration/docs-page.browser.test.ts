import type { Browser } from 'playwright-core';
import { describeInBrowser, launchChromium } from '../helpers/browser';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace } from '../helpers/factories';
import { listen } from '../helpers/sse';

/**
 * Swagger UI on /docs, as a reader tries a read there: the `input` parameter (a string whose
 * content is the JSON envelope) is a text field filled with its example, and Execute sends it as
 * `?input=` to this service (the document's `servers` is the address it was fetched from).
 */

const ctx = createTestContext();
let served: Awaited<ReturnType<typeof listen>>;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  served = await listen(ctx.app);
  baseUrl = served.url;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  await ctx.close();
});

describeInBrowser('the reference on /docs (Swagger UI)', () => {
  it("tries leads.getAll: the input field holds the example, and Execute sends it as ?input= with the key", async () => {
    const { key } = await createWorkspace(ctx.db);
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    try {
      await page.goto(`${baseUrl}/docs`);
      await page.click('button.authorize');
      await page.fill('.auth-container input[type=text], .auth-container input[type=password]', key);
      await page.click('.auth-btn-wrapper button.authorize');
      await page.click('.btn-done');

      // Swagger UI escapes the operation id's dot in the element's id: operations-leads-leads\.getAll.
      const operation = page.locator('[id="operations-leads-leads\\\\.getAll"]');
      await operation.locator('.opblock-summary').first().click();
      await operation.locator('button.try-out__btn').click();
      const field = operation.locator('tr[data-param-name="input"] input, tr[data-param-name="input"] textarea').first();
      expect(await field.inputValue()).toBe('{"json":{}}');
      await field.fill('{"json":{"pageSize":2}}');

      const answered = page.waitForResponse((res) => res.url().includes('/api/v1/rpc/leads.getAll'));
      await operation.locator('button.execute').click();
      const response = await answered;
      expect(new URL(response.url()).origin).toBe(baseUrl);
      expect(new URL(response.url()).searchParams.get('input')).toBe('{"json":{"pageSize":2}}');
      expect(response.status()).toBe(200);
      expect((await response.json()).result.data.json.pagination).toMatchObject({ pageSize: 2, total: 0 });
    } finally {
      await page.close();
    }
  }, 60_000);
});
