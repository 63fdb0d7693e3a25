import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { describeInBrowser, launchChromium } from '../helpers/browser';
import { createTestContext } from '../helpers/test-app';
import { createWorkspace, unique } from '../helpers/factories';
import { testJwtKeys } from '../helpers/test-secrets';
import { signMemberSession } from '../../src/auth/member-session';

/**
 * CORS as a real browser enforces it (cors.test.ts checks the headers): a page of another origin
 * reads the API's answers and headers, while the developer routes and cookie-carrying calls are
 * refused by the browser itself. Needs Debian's chromium, like developer-page.browser.test.ts.
 */


const ctx = createTestContext();
let api: Server;
let site: Server;
let browser: Browser;
let apiUrl: string;
let siteUrl: string;

function listen(server: Server, host: string): Promise<number> {
  server.listen(0, host);
  return new Promise((resolve) => server.once('listening', () => resolve((server.address() as AddressInfo).port)));
}

beforeAll(async () => {
  api = createServer(ctx.app);
  apiUrl = `http://127.0.0.1:${await listen(api, '127.0.0.1')}`;
  // The integrator's page: another origin (another host name and port) than the API.
  site = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>integrator</title>'));
  siteUrl = `http://localhost:${await listen(site, '127.0.0.1')}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([api, site].map((s) => new Promise((resolve) => (s ? s.close(resolve) : resolve(undefined)))));
  await ctx.close();
});

interface FetchOutcome {
  ok: boolean;
  status?: number;
  body?: string;
  headers?: Record<string, string | null>;
  error?: string;
}

/** Runs fetch in the page (the expression is a string: tests are type-checked without the DOM lib). */
function fetchInPage(page: Page, url: string, init: Record<string, unknown>, readHeaders: string[] = []): Promise<FetchOutcome> {
  return page.evaluate(`(async () => {
    try {
      const res = await fetch(${JSON.stringify(url)}, ${JSON.stringify(init)});
      const headers = {};
      for (const name of ${JSON.stringify(readHeaders)}) headers[name] = res.headers.get(name);
      return { ok: true, status: res.status, body: await res.text(), headers };
    } catch (e) {
      return { ok: false, error: String(e) };
    }
  })()`) as Promise<FetchOutcome>;
}

describeInBrowser('a page of another origin, in a real browser', () => {
  it('calls an action endpoint with a key (preflighted POST) and reads the answer and the exposed headers', async () => {
    const ws = await createWorkspace(ctx.db);
    const page = await browser.newPage();
    await page.goto(siteUrl);
    const name = unique('Browser');
    const created = await fetchInPage(page, `${apiUrl}/api/v1/rpc/leads.create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ws.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': unique('idem'), 'X-Request-Id': 'browser-cors-1' },
      body: JSON.stringify({ json: { name, phone: '+442079460018' } }),
    }, ['X-Request-Id', 'Content-Type']);
    expect(created).toMatchObject({ ok: true, status: 200, headers: { 'X-Request-Id': 'browser-cors-1', 'Content-Type': expect.stringMatching(/json/) } });
    expect(JSON.parse(created.body!).result.data.json.name).toBe(name);

    const list = await fetchInPage(page, `${apiUrl}/api/v1/leads?pageSize=5`, { headers: { Authorization: `Bearer ${ws.key}` } });
    expect(list).toMatchObject({ ok: true, status: 200 });
    expect(JSON.parse(list.body!).pagination.total).toBe(1);
    await page.close();
  });

  it('reads an error answer (401 without a key)', async () => {
    const page = await browser.newPage();
    await page.goto(siteUrl);
    const res = await fetchInPage(page, `${apiUrl}/api/v1/rpc/leads.getAll`, {});
    expect(res).toMatchObject({ ok: true, status: 401 });
    expect(JSON.parse(res.body!).error.json.data.code).toBe('UNAUTHORIZED');
    await page.close();
  });

  it('cannot call with credentials (cookies): the browser refuses the answer', async () => {
    const ws = await createWorkspace(ctx.db);
    const page = await browser.newPage();
    await page.goto(siteUrl);
    const res = await fetchInPage(page, `${apiUrl}/api/v1/rpc/leads.getAll`, { credentials: 'include', headers: { Authorization: `Bearer ${ws.key}` } });
    expect(res.ok).toBe(false);
    await page.close();
  });

  it('cannot reach the developer routes or the playground token, even with a valid member session', async () => {
    const ws = await createWorkspace(ctx.db);
    const session = signMemberSession(testJwtKeys.session, { memberId: ws.member.id, orgId: ws.org.id }).token;
    const page = await browser.newPage();
    await page.goto(siteUrl);
    const keys = await fetchInPage(page, `${apiUrl}/developer/api/keys`, { headers: { Authorization: `Bearer ${session}` } });
    const token = await fetchInPage(page, `${apiUrl}/api/v1/playground/token`, {
      method: 'POST', headers: { Authorization: `Bearer ${session}`, 'Content-Type': 'application/json' }, body: '{}',
    });
    expect([keys.ok, token.ok]).toEqual([false, false]);
    expect(keys.error).toMatch(/TypeError|Failed to fetch/);
    await page.close();
  });
});
