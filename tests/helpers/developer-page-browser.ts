import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser';
import type { TestContext } from './test-app';
import { testJwtKeys } from './test-secrets';
import { signMemberSession } from '../../src/auth/member-session';

/** The app listening on loopback and a headless Chromium: what one browser test file drives. */
export interface PageHarness {
  server: Server;
  browser: Browser;
  baseUrl: string;
}

/**
 * Serves `ctx.app` on a loopback port and launches Chromium before the file's tests, and closes
 * both and the context after them. The fields are filled in `beforeAll`: read them in tests.
 */
export function serveToChromium(ctx: TestContext): PageHarness {
  const harness = {} as PageHarness;
  beforeAll(async () => {
    harness.server = ctx.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => harness.server.once('listening', () => resolve()));
    harness.baseUrl = `http://127.0.0.1:${(harness.server.address() as AddressInfo).port}`;
    harness.browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await harness.browser?.close();
    await new Promise((resolve) => (harness.server ? harness.server.close(resolve) : resolve(undefined)));
    await ctx.close();
  });
  return harness;
}

/**
 * A fresh page of /developer with the member signed in (the sign-in button clicked: wait for
 * what the test needs next), its console errors collected, and the session it signed in with. (Expressions run in the page are
 * strings: the tests are type-checked without the DOM lib.)
 */
export async function developerPageOf(harness: PageHarness, member: { memberId: string; orgId: string }): Promise<{ page: Page; consoleErrors: string[]; session: string }> {
  // The test app's sessions are signed with the tests' own secret (test-app.ts).
  const session = signMemberSession(testJwtKeys.session, member).token;
  const page = await harness.browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const consoleErrors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  await page.goto(`${harness.baseUrl}/developer`);
  await page.fill('#session-input', session);
  await page.click('#sign-in-button');
  return { page, consoleErrors, session };
}
