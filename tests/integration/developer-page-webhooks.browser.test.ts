import { describeInBrowser } from '../helpers/browser';
import { developerPageOf, serveToChromium } from '../helpers/developer-page-browser';
import { createTestContext } from '../helpers/test-app';
import { createKey, createMember, createOrg } from '../helpers/factories';
import { insertEndpoint, startReceiver, type Receiver } from '../helpers/webhook-fixtures';

const ctx = createTestContext();
const harness = serveToChromium(ctx);
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver(() => ({ status: 200, body: 'pong' }));
});

afterAll(async () => {
  await receiver?.close();
});

describeInBrowser('GET /developer: the webhooks section in a real browser', () => {
  it('lists endpoints with their delivery figures, sends a test event and redelivers since a time, showing each answer', async () => {
    const org = await createOrg(ctx.db, { tier: 'BUSINESS', features: ['DEVELOPER_API'] });
    const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
    const owner = await createKey(ctx.db, org.id, { memberId: member.id });
    const endpoint = await insertEndpoint(ctx.db, { orgId: org.id, ownerKeyId: owner.id, url: receiver.url, events: ['lead.created'] });
    // Two past events the endpoint never got (as if it was added after them).
    await ctx.db.raw(
      `insert into events (org_id, id, type, actor_kind, actor_id, object_id, data)
       select ?, 'evt_page' || g || '_' || ?, 'lead.created', 'apiKey', ?, 'lead_page' || g, '{}'::jsonb from generate_series(1, 2) g`,
      [org.id, org.id.slice(-6), owner.id],
    );
    const { page, consoleErrors } = await developerPageOf(harness, { memberId: member.id, orgId: org.id });
    await page.waitForSelector('#webhooks-section:not([hidden])');
    await page.waitForSelector('#token-scopes tr[data-resource="webhooks"]', { state: 'attached' });

    // Write on webhooks for the buttons; the token lists the endpoints as soon as it is ready.
    await page.click('#token-scopes-details summary');
    await page.check('#token-scopes input[name="token-scope-webhooks"][value="write"]');
    await page.click('#get-token');
    await page.waitForSelector('#token-status:has-text("Test token ready")');
    const row = `#webhooks-table tr[data-endpoint-id="${endpoint.id}"]`;
    await page.waitForSelector(row);
    expect(await page.textContent(`${row} td:first-child`)).toBe(receiver.url);
    expect(await page.textContent(`${row} .webhook-stats`)).toBe('no attempts yet · no attempts in 24 h');

    await page.click(`${row} .webhook-test`);
    await page.waitForSelector(`${row} .webhook-answer:has-text("Test event delivered")`);
    expect(await page.textContent(`${row} .webhook-answer`)).toMatch(/^Test event delivered: HTTP 200 in \d+ ms · pong$/);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.headers['workspace-test']).toBe('true');

    // The default "since" is an hour ago: both events are queued.
    await page.click(`${row} .webhook-redeliver`);
    await page.waitForSelector(`${row} .webhook-answer:has-text("Queued")`);
    expect(await page.textContent(`${row} .webhook-answer`)).toBe('Queued 2 events for delivery again.');
    const queued = await ctx.db('webhook_deliveries').where({ org_id: org.id, endpoint_id: endpoint.id, status: 'pending' });
    expect(queued).toHaveLength(2);

    // A date in the future queues nothing, and says so.
    await page.fill(`${row} .webhook-since`, '2099-01-01T00:00');
    await page.click(`${row} .webhook-redeliver`);
    await page.waitForSelector(`${row} .webhook-answer:has-text("Queued 0 events")`);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('shows the refusal in the row when the test token may only read webhooks', async () => {
    const org = await createOrg(ctx.db, { tier: 'BUSINESS', features: ['DEVELOPER_API'] });
    const member = await createMember(ctx.db, org.id, ['DEVELOPER']);
    const owner = await createKey(ctx.db, org.id, { memberId: member.id });
    const endpoint = await insertEndpoint(ctx.db, { orgId: org.id, ownerKeyId: owner.id, url: receiver.url });
    const { page } = await developerPageOf(harness, { memberId: member.id, orgId: org.id });
    await page.waitForSelector('#token-scopes tr[data-resource="webhooks"]', { state: 'attached' });
    await page.click('#get-token');
    const row = `#webhooks-table tr[data-endpoint-id="${endpoint.id}"]`;
    await page.waitForSelector(row);
    const before = receiver.requests.length;
    await page.click(`${row} .webhook-test`);
    await page.waitForSelector(`${row} .webhook-answer.error`);
    expect(await page.textContent(`${row} .webhook-answer`)).toContain('webhooks.update');
    expect(receiver.requests).toHaveLength(before);
    await page.close();
  });
});
